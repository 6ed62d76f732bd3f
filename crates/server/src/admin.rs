//! What the people who run a server do (`broadside admin`): read the
//! players' reports and the operators' log, ban and mute. Every action is
//! written to the log with when and why; every node follows the log and
//! closes a banned person's connections within a second (moderation.rs).
//!
//! A person is named by an account's username (any case, or a name that
//! looks alike) or, for a guest, as `#ID` (the id the reports show).

use crate::accounts;
use crate::config::now_ms;
use crate::db::{Db, DbError, Sanction};

/// An operator's command that could not be done.
#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    #[error(transparent)]
    Db(#[from] DbError),
    #[error("no player {0:?}: name an account's username, or a guest as #ID")]
    NoSuchPlayer(String),
    #[error("the reason is missing: say why (--reason)")]
    NoReason,
}

/// What an operator does to a person.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// No sign-in, no play, every connection closed; `None`: for good.
    Ban(Option<u32>),
    Unban,
    /// No chat; `None`: for good.
    Mute(Option<u32>),
    Unmute,
}

const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// The player `user` names.
pub async fn resolve(db: &Db, user: &str) -> Result<(i64, String), AdminError> {
    if let Some(id) = user.strip_prefix('#').and_then(|id| id.parse::<i64>().ok()) {
        return match db.account(id).await? {
            Some(account) => Ok((id, account.username)),
            None => match db.nickname(id).await? {
                Some(nickname) => Ok((id, format!("{nickname} (#{id})"))),
                None => Err(AdminError::NoSuchPlayer(user.to_string())),
            },
        };
    }
    let key = accounts::username_key(user)
        .map(|(_, key)| key)
        .map_err(|_| AdminError::NoSuchPlayer(user.to_string()))?;
    match db.account_by_key(key).await? {
        Some(account) => Ok((account.player_id, account.username)),
        None => Err(AdminError::NoSuchPlayer(user.to_string())),
    }
}

/// Does `action` to `user`, logged with `reason`; answers what was done.
pub async fn act(db: &Db, user: &str, action: Action, reason: &str) -> Result<String, AdminError> {
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(AdminError::NoReason);
    }
    let (player, name) = resolve(db, user).await?;
    let now = now_ms();
    let current = db.sanction(player).await?.unwrap_or(Sanction {
        player,
        banned_until_ms: None,
        muted_until_ms: None,
    });
    let until = |days: Option<u32>| days.map_or(i64::MAX, |d| now + i64::from(d) * DAY_MS);
    let (sanction, word, done) = match action {
        Action::Ban(days) => (
            Sanction {
                banned_until_ms: Some(until(days)),
                ..current
            },
            "ban",
            format!("{name} is banned {}", for_how_long(days)),
        ),
        Action::Unban => (
            Sanction {
                banned_until_ms: None,
                ..current
            },
            "unban",
            format!("{name} is no longer banned"),
        ),
        Action::Mute(days) => (
            Sanction {
                muted_until_ms: Some(until(days)),
                ..current
            },
            "mute",
            format!("{name} is muted {}", for_how_long(days)),
        ),
        Action::Unmute => (
            Sanction {
                muted_until_ms: None,
                ..current
            },
            "unmute",
            format!("{name} may chat again"),
        ),
    };
    db.set_sanction(sanction, word.to_string(), reason.to_string(), now)
        .await?;
    Ok(done)
}

fn for_how_long(days: Option<u32>) -> String {
    match days {
        None => "for good".to_string(),
        Some(1) => "for 1 day".to_string(),
        Some(days) => format!("for {days} days"),
    }
}

/// The latest reports as a table.
pub async fn reports(db: &Db, limit: usize) -> Result<String, AdminError> {
    let reports = db.reports(limit).await?;
    if reports.is_empty() {
        return Ok("No reports.\n".to_string());
    }
    let mut out = String::from("id\twhen (UTC)\treporter\treported\treason\troom\tgame\tnote\n");
    for (report, reporter, reported) in reports {
        out.push_str(&format!(
            "{}\t{}\t{} (#{})\t{} (#{})\t{}\t{}\t{}\t{}\n",
            report.id,
            utc(report.created_ms),
            reporter,
            report.reporter,
            reported,
            report.reported,
            report.reason,
            report.room_code.as_deref().unwrap_or("-"),
            report
                .game_id
                .map_or("-".to_string(), |id| format!("/g/{id}")),
            report
                .note
                .as_deref()
                .unwrap_or("")
                .replace(['\n', '\t'], " "),
        ));
    }
    Ok(out)
}

/// The operators' log as a table, newest first.
pub async fn log(db: &Db, limit: usize) -> Result<String, AdminError> {
    let lines = db.moderation_log(limit).await?;
    if lines.is_empty() {
        return Ok("Nothing done yet.\n".to_string());
    }
    let mut out = String::from("when (UTC)\tplayer\taction\tuntil (UTC)\treason\n");
    for line in lines {
        let until = match line.until_ms {
            None => "-".to_string(),
            Some(i64::MAX) => "for good".to_string(),
            Some(until) => utc(until),
        };
        out.push_str(&format!(
            "{}\t#{}\t{}\t{}\t{}\n",
            utc(line.at_ms),
            line.player,
            line.action,
            until,
            line.reason.replace(['\n', '\t'], " ")
        ));
    }
    Ok(out)
}

/// Unix milliseconds as `YYYY-MM-DD HH:MM` in UTC.
fn utc(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let of_day = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}",
        of_day / 3600,
        of_day % 3600 / 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_utc_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00");
        assert_eq!(utc(1_764_423_000_000), "2025-11-29 13:30");
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00");
    }
}
