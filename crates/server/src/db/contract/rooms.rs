//! The contract: rooms, seats, games, the command log and chat.

use std::collections::BTreeMap;

use super::{chat, command, game_room, lobby, people, seat, Fresh, TTL};
use crate::db::{CommandRecord, DbError, OpenRoom, RoomRecord, SeatKind, StoredGame};

async fn the_command_log_replays_in_order_and_my_games_follows_the_phase(fresh: Fresh) {
    let db = &fresh.db;
    let player = db
        .create_player(b"h".to_vec(), "Ana".into(), 1)
        .await
        .unwrap();
    assert_eq!(
        db.player_by_token_hash(b"h".to_vec()).await.unwrap(),
        Some((player, "Ana".to_string()))
    );
    assert_eq!(db.player_by_token_hash(b"x".to_vec()).await.unwrap(), None);
    db.set_nickname(player, "Ana B".into()).await.unwrap();
    let mut room = lobby("QWERTY", player);
    let lease = db
        .create_room(room.clone(), 1, "a", TTL)
        .await
        .unwrap()
        .expect("a free code");
    assert_eq!((lease.code.as_str(), lease.node.as_str()), ("QWERTY", "a"));
    assert!(
        db.create_room(room.clone(), 1, "b", TTL)
            .await
            .unwrap()
            .is_none(),
        "a taken code is refused"
    );
    let owner = db.owner("QWERTY".into()).await.unwrap();
    if db.is_shared() {
        assert_eq!(owner.unwrap().node, "a");
    } else {
        assert_eq!(owner, None, "one process owns every room");
    }
    let games = db.my_games(player).await.unwrap();
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].phase, "lobby");
    assert_eq!(games[0].seats.len(), 2);
    assert_eq!(games[0].seats[0].nickname.as_deref(), Some("Ana B"));
    assert_eq!(games[0].seats[1].level.as_deref(), Some("easy"));
    assert!(db.running_rooms().await.unwrap().is_empty(), "a lobby");

    room.game_number = 1;
    room.phase = "placement".into();
    let game_id = db
        .start_game(room, "{\"seed\":1}".into(), Some(99), 2, &lease)
        .await
        .unwrap();
    let (_, game) = db.load_room("QWERTY".into()).await.unwrap().unwrap();
    let game = game.expect("a game runs");
    assert_eq!((game.id, game.number), (game_id, 1));
    assert_eq!(game.setup, "{\"seed\":1}");
    assert_eq!(game.deadline_ms, Some(99), "the game's own deadline");
    assert!(game.commands.is_empty());
    assert_eq!(db.running_rooms().await.unwrap(), vec!["QWERTY"]);

    for seq in 1..=2 {
        db.record_command(command("QWERTY", game_id, seq), &lease)
            .await
            .unwrap();
    }
    assert_eq!(db.my_games(player).await.unwrap()[0].phase, "battle");
    db.record_command(command("QWERTY", game_id, 3), &lease)
        .await
        .unwrap();
    let (room, game) = db.load_room("QWERTY".into()).await.unwrap().unwrap();
    let game = game.unwrap();
    assert_eq!(game.commands, vec!["{\"n\":1}", "{\"n\":2}", "{\"n\":3}"]);
    assert_eq!(game.deadline_ms, Some(1003), "the last command's deadline");
    assert_eq!(room.phase, "finished");
    assert_eq!(room.seats.len(), 2);
    assert!(db.my_games(player).await.unwrap().is_empty());
    assert!(db.running_rooms().await.unwrap().is_empty());

    // A command lost from the middle of the log makes the game unreadable.
    db.record_command(command("QWERTY", game_id, 5), &lease)
        .await
        .unwrap();
    assert!(matches!(
        db.load_room("QWERTY".into()).await,
        Err(DbError::Corrupt(_))
    ));
    assert!(db.load_room("NOSUCH".into()).await.unwrap().is_none());

    for n in 0..5 {
        db.add_chat("QWERTY".into(), chat(&format!("line {n}")), &lease)
            .await
            .unwrap();
    }
    let lines = db.recent_chat("QWERTY".into(), 3).await.unwrap();
    let texts: Vec<&str> = lines.iter().map(|line| line.text.as_str()).collect();
    assert_eq!(
        texts,
        ["line 2", "line 3", "line 4"],
        "the last lines, oldest first"
    );
    assert_eq!(lines[0].seat, Some(0));
    assert_eq!(lines[0].at_ms, 5);
    assert!(!lines[0].watchers);
    // A watchers' line stays one when read back (a rejoin must not show it
    // to the players).
    let watchers = crate::db::ChatRecord {
        watchers: true,
        ..chat("for watchers")
    };
    db.add_chat("QWERTY".into(), watchers, &lease)
        .await
        .unwrap();
    let lines = db.recent_chat("QWERTY".into(), 2).await.unwrap();
    let read: Vec<(&str, bool)> = lines
        .iter()
        .map(|line| (line.text.as_str(), line.watchers))
        .collect();
    assert_eq!(read, [("line 4", false), ("for watchers", true)]);
}
on_both!(the_command_log_replays_in_order_and_my_games_follows_the_phase);

/// Every kind of seat is stored and read back as it was, with its player or
/// level, in seat order; saving the room replaces its seats.
async fn seats_keep_their_kind_player_and_level(fresh: Fresh) {
    let db = &fresh.db;
    let ana = people(db, &["Ana"]).await[0];
    let mut room = RoomRecord {
        seats: vec![
            seat(SeatKind::Open, None, None),
            seat(SeatKind::Bot, None, Some("hard")),
            seat(SeatKind::Person, Some(ana), None),
        ],
        host: 2,
        ..lobby("SEATED", ana)
    };
    let lease = db
        .create_room(room.clone(), 1, "a", TTL)
        .await
        .unwrap()
        .unwrap();
    let (stored, game) = db.load_room("SEATED".into()).await.unwrap().unwrap();
    assert!(game.is_none());
    assert_eq!(stored.host, 2);
    let kinds: Vec<SeatKind> = stored.seats.iter().map(|s| s.kind).collect();
    assert_eq!(kinds, [SeatKind::Open, SeatKind::Bot, SeatKind::Person]);
    assert_eq!(stored.seats[1].level.as_deref(), Some("hard"));
    assert_eq!(stored.seats[2].player_id, Some(ana));
    assert_eq!(stored.seats[2].nickname.as_deref(), Some("Ana"));
    assert_eq!(db.my_games(ana).await.unwrap()[0].seat, 2);

    room.seats.truncate(1);
    room.host = 0;
    db.save_room(room, 2, &lease).await.unwrap();
    let (stored, _) = db.load_room("SEATED".into()).await.unwrap().unwrap();
    assert_eq!(stored.seats, [seat(SeatKind::Open, None, None)]);
    assert!(
        db.my_games(ana).await.unwrap().is_empty(),
        "no seat any more"
    );
}
on_both!(seats_keep_their_kind_player_and_level);

/// What [`Db::load_game`] must do.
async fn a_stored_game_loads_by_id_with_its_log_finished_or_not(fresh: Fresh) {
    let db = &fresh.db;
    let player = db
        .create_player(b"h".to_vec(), "Ana".into(), 1)
        .await
        .unwrap();
    let mut room = RoomRecord {
        seats: vec![
            seat(SeatKind::Person, Some(player), None),
            seat(SeatKind::Open, None, None),
        ],
        ..lobby("QWERTY", player)
    };
    let lease = db
        .create_room(room.clone(), 1, "a", TTL)
        .await
        .unwrap()
        .expect("a free code");
    room.game_number = 1;
    room.phase = "placement".into();
    let id = db
        .start_game(room.clone(), "{\"seed\":1}".into(), None, 2, &lease)
        .await
        .unwrap();
    let command = |game_id: i64, seq: u64, at_ms: i64| CommandRecord {
        at_ms,
        deadline_ms: None,
        ..command("QWERTY", game_id, seq)
    };
    assert_eq!(db.load_game(id + 1).await.unwrap(), None, "no such game");
    db.record_command(command(id, 1, 3), &lease).await.unwrap();
    let running = db.load_game(id).await.unwrap().expect("the game");
    assert_eq!(
        running,
        StoredGame {
            id,
            room_code: "QWERTY".into(),
            number: 1,
            setup: "{\"seed\":1}".into(),
            commands: vec!["{\"n\":1}".into()],
            finished: false,
            finished_ms: None,
        }
    );
    db.record_command(command(id, 2, 3), &lease).await.unwrap();
    db.record_command(command(id, 3, 77), &lease).await.unwrap();
    let finished = db.load_game(id).await.unwrap().expect("the game");
    assert_eq!(finished.commands, ["{\"n\":1}", "{\"n\":2}", "{\"n\":3}"]);
    assert!(finished.finished);
    assert_eq!(finished.finished_ms, Some(77), "when the last command came");

    // The room's next game (a rematch), with a gap in its log.
    room.game_number = 2;
    let rematch = db
        .start_game(room, "{\"seed\":2}".into(), None, 80, &lease)
        .await
        .unwrap();
    assert_ne!(rematch, id);
    db.record_command(command(rematch, 1, 81), &lease)
        .await
        .unwrap();
    db.record_command(command(rematch, 3, 82), &lease)
        .await
        .unwrap();
    match db.load_game(rematch).await {
        Err(DbError::Corrupt(message)) => assert!(message.contains("command 2"), "{message}"),
        other => panic!("a gap is corruption, not {other:?}"),
    }
    assert_eq!(db.load_game(id).await.unwrap(), Some(finished));
}
on_both!(a_stored_game_loads_by_id_with_its_log_finished_or_not);

/// A sequence number the log cannot hold is refused before any backend sees
/// it, and nothing is stored.
async fn a_command_number_beyond_the_log_is_refused(fresh: Fresh) {
    let db = &fresh.db;
    let (_, lease, game_id) = game_room(db, "HUGESQ", TTL).await;
    let huge = command("HUGESQ", game_id, u64::MAX);
    assert!(matches!(
        db.record_command(huge, &lease).await,
        Err(DbError::Corrupt(message)) if message.contains("command number")
    ));
    let (room, game) = db.load_room("HUGESQ".into()).await.unwrap().unwrap();
    assert!(game.unwrap().commands.is_empty());
    assert_eq!(room.phase, "placement");
}
on_both!(a_command_number_beyond_the_log_is_refused);

async fn concurrent_appends_all_succeed_and_replay_in_order(fresh: Fresh) {
    let db = &fresh.db;
    let (_, lease, game_id) = game_room(db, "MANYCO", TTL).await;
    let mut writes = Vec::new();
    for seq in 1..=200u64 {
        let (db, lease) = (db.clone(), lease.clone());
        writes.push(tokio::spawn(async move {
            let mut record = command("MANYCO", game_id, seq);
            (record.finished, record.summary_changed) = (false, seq % 10 == 0);
            db.record_command(record, &lease).await
        }));
    }
    for seq in 0..20 {
        let (db, lease) = (db.clone(), lease.clone());
        writes.push(tokio::spawn(async move {
            db.add_chat("MANYCO".into(), chat(&format!("{seq}")), &lease)
                .await
        }));
    }
    for write in writes {
        write.await.unwrap().expect("every append is stored");
    }
    let duplicate = db
        .record_command(command("MANYCO", game_id, 7), &lease)
        .await;
    assert!(
        matches!(duplicate, Err(DbError::Postgres(_) | DbError::Sqlite(_))),
        "seq 7 is stored once: {duplicate:?}"
    );
    let (_, game) = db.load_room("MANYCO".into()).await.unwrap().unwrap();
    let commands = game.unwrap().commands;
    assert_eq!(commands.len(), 200);
    assert_eq!(commands[199], "{\"n\":200}");
    assert_eq!(db.recent_chat("MANYCO".into(), 50).await.unwrap().len(), 20);
    let (commits, jobs) = db.stats();
    if db.is_shared() {
        // Each append its own transaction.
        assert!(
            commits >= 220 && jobs > commits,
            "{commits} commits, {jobs} jobs"
        );
    } else {
        // Appends share commits (db/sqlite/tests.rs looks closer).
        assert!(
            jobs >= 221 && commits <= jobs,
            "{commits} commits, {jobs} jobs"
        );
    }
}
on_both!(
    concurrent_appends_all_succeed_and_replay_in_order,
    flavor = "multi_thread",
    worker_threads = 2
);

async fn open_rooms_lists_only_public_lobbies(fresh: Fresh) {
    let db = &fresh.db;
    let ana = people(db, &["Ana"]).await[0];
    let mut leases = BTreeMap::new();
    for (code, public) in [("PUBLOB", true), ("PRILOB", false), ("PUBRUN", true)] {
        let room = RoomRecord {
            public,
            ..lobby(code, ana)
        };
        let lease = db.create_room(room, 1, "a", TTL).await.unwrap().unwrap();
        leases.insert(code, lease);
    }
    let mut running = RoomRecord {
        public: true,
        ..lobby("PUBRUN", ana)
    };
    running.game_number = 1;
    running.phase = "placement".into();
    db.start_game(running, "{}".into(), None, 2, &leases["PUBRUN"])
        .await
        .unwrap();
    let (room, _) = db.load_room("PUBLOB".into()).await.unwrap().unwrap();
    assert!(room.public);
    let (room, _) = db.load_room("PRILOB".into()).await.unwrap().unwrap();
    assert!(!room.public);

    let open = db.open_rooms(10).await.unwrap();
    assert_eq!(open.len(), 1);
    assert_eq!(open[0].code, "PUBLOB");
    assert_eq!(open[0].setup, "{}");
    assert_eq!(open[0].updated_ms, 1);
    assert_eq!(open[0].seats.len(), 2);
    assert_eq!(open[0].seats[0].nickname.as_deref(), Some("Ana"));
    assert_eq!(open[0].seats[1].kind, SeatKind::Bot);

    // Made public later: listed, newest first; made private: gone.
    let opened = RoomRecord {
        public: true,
        ..lobby("PRILOB", ana)
    };
    db.save_room(opened, 5, &leases["PRILOB"]).await.unwrap();
    let codes = |rooms: Vec<OpenRoom>| rooms.into_iter().map(|r| r.code).collect::<Vec<_>>();
    assert_eq!(
        codes(db.open_rooms(10).await.unwrap()),
        ["PRILOB", "PUBLOB"]
    );
    assert_eq!(codes(db.open_rooms(1).await.unwrap()), ["PRILOB"]);
    db.save_room(lobby("PUBLOB", ana), 6, &leases["PUBLOB"])
        .await
        .unwrap();
    assert_eq!(codes(db.open_rooms(10).await.unwrap()), ["PRILOB"]);
}
on_both!(open_rooms_lists_only_public_lobbies);
