//! A test harness: a server on port 0 with its own database, and a small
//! WebSocket client that records every frame it receives.
//!
//! The database is the SQLite file a test names, or, when
//! `BROADSIDE_TEST_BACKEND=postgres` and `BROADSIDE_TEST_POSTGRES` holds a
//! PostgreSQL administrator's URL (e.g.
//! `postgres://root@127.0.0.1:5432/postgres`), a PostgreSQL database of that
//! file's own: every suite then runs against the PostgreSQL backend. The test
//! command (scripts/test.sh) runs the suites both ways.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use broadside_server::{Config, Db};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

mod client;
mod passkey;
mod sign_up;
pub use client::*;
pub use passkey::*;

pub struct TestServer {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl TestServer {
    /// A server on a fresh port over the database at `db` (bots move at once).
    pub async fn start(db: &Path) -> TestServer {
        TestServer::start_with(
            db,
            Config {
                bot_delay: Duration::ZERO,
                ..Config::default()
            },
        )
        .await
    }

    /// A server whose quick match never offers a bot within a test.
    pub async fn start_without_bot_offer(db: &Path) -> TestServer {
        TestServer::start_with(
            db,
            Config {
                bot_delay: Duration::ZERO,
                match_wait: Duration::from_secs(60),
                ..Config::default()
            },
        )
        .await
    }

    /// A server with `config`. Busy refusals have their own tests
    /// (operations.rs), which name a threshold: with the default one a
    /// loaded test machine would turn other tests' new games away, so it
    /// becomes "never".
    pub async fn start_with(db: &Path, mut config: Config) -> TestServer {
        if config.busy_lag == Config::default().busy_lag {
            config.busy_lag = Duration::ZERO;
        }
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("loopback port 0 is bindable");
        let addr = listener
            .local_addr()
            .expect("a bound listener has an address");
        let db = open_db(db).await;
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            broadside_server::run(listener, db, config, async {
                let _ = stopped.await;
            })
            .await
            .expect("the server runs until shutdown");
        });
        TestServer {
            addr,
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// Shuts the server down and waits until it has stopped.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            tokio::time::timeout(PATIENCE, task)
                .await
                .expect("the server stops in time")
                .expect("no panic");
        }
    }

    pub async fn client(&self) -> Client {
        Client::connect(self.addr).await
    }

    /// A client that has said hello as `nickname`.
    pub async fn person(&self, nickname: &str) -> Client {
        let mut client = self.client().await;
        client.hello(None, nickname).await;
        client
    }
}

/// The database of the path `db`: that SQLite file, or its PostgreSQL database
/// (see [`postgres_url`]) when the suites run on PostgreSQL.
pub async fn open_db(db: &Path) -> Db {
    match postgres_admin() {
        None => Db::open(db).expect("the test database opens"),
        Some(admin) => {
            let url = postgres_database(&admin, db).await;
            Db::connect(&url)
                .await
                .expect("the test's PostgreSQL database opens")
        }
    }
}

/// The administrator's URL of the PostgreSQL server the suites run on, if
/// they run on PostgreSQL (`BROADSIDE_TEST_BACKEND=postgres`).
pub fn postgres_admin() -> Option<String> {
    if std::env::var("BROADSIDE_TEST_BACKEND").as_deref() != Ok("postgres") {
        return None;
    }
    let url = std::env::var("BROADSIDE_TEST_POSTGRES")
        .expect("BROADSIDE_TEST_BACKEND=postgres needs BROADSIDE_TEST_POSTGRES (an admin URL)");
    Some(url)
}

/// The URL of the PostgreSQL database that stands for the file `db`: named
/// from a hash of the path (`bs_test_<hex>`), so that servers started one after
/// the other on one path (the restart tests) share it.
pub fn postgres_url(admin: &str, db: &Path) -> String {
    use sha2::Digest;
    let hash = sha2::Sha256::digest(db.as_os_str().as_encoded_bytes());
    let hex: String = hash[..8].iter().map(|b| format!("{b:02x}")).collect();
    let name = format!("bs_test_{hex}");
    // The admin URL with its database replaced.
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

/// Creates (if missing) the PostgreSQL database of the file `db` and returns
/// its URL.
///
/// Cleaning up: each database's comment names the directory of its file,
/// which belongs to the test's `TempDir`. Before creating one, the databases
/// (`bs_test_*`) whose directory is gone, because their test has ended, are
/// dropped; so a run leaves behind at most the databases of its last tests,
/// which the next run drops (as may the test command: all are `bs_test_*`).
async fn postgres_database(admin: &str, db: &Path) -> String {
    let url = postgres_url(admin, db);
    let name = url
        .rsplit('/')
        .next()
        .and_then(|tail| tail.split('?').next())
        .expect("a database name")
        .to_string();
    let (client, connection) = tokio_postgres::connect(admin, tokio_postgres::NoTls)
        .await
        .expect("BROADSIDE_TEST_POSTGRES names a reachable server");
    tokio::spawn(connection);
    drop_ended_databases(&client).await;
    let dir = db.parent().unwrap_or(db);
    std::fs::create_dir_all(dir).expect("the test's data directory can be made");
    match client
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .await
    {
        Ok(()) => {
            let dir = dir.to_string_lossy().replace('\'', "''");
            client
                .batch_execute(&format!("COMMENT ON DATABASE {name} IS '{dir}'"))
                .await
                .expect("the test database can be labelled");
        }
        // A second server on the same file: the same database.
        Err(error)
            if error.code() == Some(&tokio_postgres::error::SqlState::DUPLICATE_DATABASE) => {}
        Err(error) => panic!("cannot create the test database {name}: {error}"),
    }
    url
}

/// Drops the test databases whose test directory no longer exists.
async fn drop_ended_databases(client: &tokio_postgres::Client) {
    let rows = client
        .query(
            "SELECT datname, shobj_description(oid, 'pg_database') FROM pg_database
             WHERE datname LIKE 'bs\\_test\\_%'",
            &[],
        )
        .await
        .expect("the server lists its databases");
    for row in rows {
        let (name, dir): (String, Option<String>) = (row.get(0), row.get(1));
        // A database without a comment is being made (or is not the
        // harness's): left alone.
        let Some(dir) = dir else { continue };
        if Path::new(&dir).is_absolute() && !Path::new(&dir).exists() {
            // Another process may be dropping it too: errors do not matter.
            let _ = client
                .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                .await;
        }
    }
}

/// The stored setup and commands (JSON, in order) of a room's current game,
/// read from the tables of the database that `db` stands for.
pub fn stored_game_rows(db: &Path, code: &str) -> (String, Vec<String>) {
    let (_, setup, commands) = stored_game(db, code);
    (setup, commands)
}

/// The id, stored setup and commands (JSON, in order) of a room's current
/// game, read from the tables of the database that `db` stands for.
pub fn stored_game(db: &Path, code: &str) -> (i64, String, Vec<String>) {
    let game = "SELECT games.id, games.setup FROM games JOIN rooms ON rooms.game_id = games.id WHERE rooms.code = $1";
    let commands = "SELECT command FROM commands WHERE game_id = $1 ORDER BY seq";
    let Some(admin) = postgres_admin() else {
        let conn = rusqlite::Connection::open(db).unwrap();
        let (id, setup): (i64, String) = conn
            .query_row(&game.replace("$1", "?1"), [code], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        let mut statement = conn.prepare(&commands.replace("$1", "?1")).unwrap();
        let commands = statement
            .query_map([id], |r| r.get::<_, String>(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        return (id, setup, commands);
    };
    let url = postgres_url(&admin, db);
    let code = code.to_string();
    // Called from a test's runtime, which must not block on itself: a thread
    // of its own with a runtime of its own.
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(async move {
                let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                    .await
                    .unwrap();
                tokio::spawn(connection);
                let row = client.query_one(game, &[&code]).await.unwrap();
                let (id, setup): (i64, String) = (row.get(0), row.get(1));
                let rows = client.query(commands, &[&id]).await.unwrap();
                (id, setup, rows.iter().map(|r| r.get(0)).collect())
            })
    })
    .join()
    .unwrap()
}

pub fn temp_db() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temp dir can be made");
    let path = dir.path().join("data").join("test.sqlite");
    (dir, path)
}
