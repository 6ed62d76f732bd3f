//! Scratch databases for the tests of the storage (the contract suite and the
//! backends' own tests).
//!
//! PostgreSQL's need a server: `BROADSIDE_TEST_POSTGRES` holds an
//! administrator's URL (e.g. `postgres://root@127.0.0.1:5432/postgres`), and
//! without it they fail saying so (none passes without having run). The
//! project's test command starts PostgreSQL and always sets it. Each test
//! works in a fresh database of its own (`bs_test_<random hex>`), dropped at
//! its end.

use tokio_postgres::NoTls;

/// A scratch PostgreSQL database, dropped (with its connections) when this
/// goes.
pub(crate) struct Scratch {
    admin: String,
    name: String,
    pub url: String,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let (admin, name) = (self.admin.clone(), self.name.clone());
        // Drop may run inside a runtime: the drop runs on its own thread.
        let dropped = std::thread::spawn(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime")
                .block_on(async {
                    let admin = admin_client(&admin).await;
                    admin
                        .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                        .await
                })
        })
        .join();
        if !matches!(dropped, Ok(Ok(()))) {
            eprintln!("could not drop the test database {}", self.name);
        }
    }
}

async fn admin_client(admin: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(admin, NoTls)
        .await
        .expect("BROADSIDE_TEST_POSTGRES names a reachable server");
    tokio::spawn(connection);
    client
}

/// `admin` with its database replaced by `name`.
fn database_url(admin: &str, name: &str) -> String {
    let (base, query) = match admin.split_once('?') {
        Some((base, query)) => (base, format!("?{query}")),
        None => (admin, String::new()),
    };
    let host_start = base.find("://").map_or(0, |at| at + 3);
    let base = match base[host_start..].find('/') {
        Some(slash) => &base[..host_start + slash],
        None => base,
    };
    format!("{base}/{name}{query}")
}

/// A fresh empty PostgreSQL database. Without a server to make it in the
/// test fails: a PostgreSQL test never passes without having run.
pub(crate) async fn scratch() -> Scratch {
    let Some(admin) = std::env::var("BROADSIDE_TEST_POSTGRES")
        .ok()
        .filter(|url| !url.is_empty())
    else {
        panic!(
            "this test needs PostgreSQL: set BROADSIDE_TEST_POSTGRES to an administrator's \
             URL (e.g. postgres://root@127.0.0.1:5432/postgres), or run scripts/test.sh, \
             which starts PostgreSQL and sets it"
        );
    };
    let name = format!("bs_test_{:016x}", rand::random::<u64>());
    admin_client(&admin)
        .await
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .await
        .expect("the test database can be created");
    Scratch {
        url: database_url(&admin, &name),
        admin,
        name,
    }
}

#[cfg(test)]
mod tests {
    use super::database_url;

    #[test]
    fn test_database_urls_keep_the_server_and_options() {
        assert_eq!(
            database_url("postgres://root@127.0.0.1:5432/postgres", "x"),
            "postgres://root@127.0.0.1:5432/x"
        );
        assert_eq!(
            database_url("postgres://root@h", "x"),
            "postgres://root@h/x"
        );
        assert_eq!(
            database_url("postgresql://u@h/db?sslmode=disable", "x"),
            "postgresql://u@h/x?sslmode=disable"
        );
    }
}
