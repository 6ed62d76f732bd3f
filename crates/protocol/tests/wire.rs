//! The wire format is pinned: tests/fixtures/server_frames.jsonl holds frames
//! the server sent before the frames were typed (captured from the server's
//! test suites, one of each shape: field order, `null`s, floats), and each
//! must read as a `ServerFrame` and write back byte for byte. One more state
//! frame, to a seat that must act in a salvo round (with the view's
//! `legal_targets`, added after the capture), is the engine's own: a test
//! below builds it again and finds it there. The state frames' `seq` and the
//! `change` frame came with change frames (docs/protocol.md, "State and
//! change").

use broadside_engine::{Command, CustomShip, Game, Options, Preset, Setup};
use broadside_protocol::{
    parse, ClientFrame, RoomPhase, RoomSetup, ServerFrame, StateFrame, MAX_REQUEST_ID,
};

const SERVER_FRAMES: &str = include_str!("fixtures/server_frames.jsonl");

#[test]
fn captured_server_frames_write_back_byte_for_byte() {
    let mut kinds = std::collections::BTreeSet::new();
    for (number, line) in SERVER_FRAMES.lines().enumerate() {
        let frame: ServerFrame = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("line {}: {e}: {line}", number + 1));
        assert_eq!(frame.to_text(), line, "line {}", number + 1);
        kinds.insert(frame.kind());
    }
    // Every frame the server sends is among them.
    assert_eq!(kinds.len(), 19, "{kinds:?}");
}

fn game(preset: Preset) -> Game {
    Game::new(&Setup {
        preset,
        seats: 2,
        seed: 7,
        options: Options::default(),
        teams: None,
    })
    .expect("a valid setup")
}

#[test]
fn state_frames_of_every_preset_read_back() {
    // A view's `ships_afloat` is a map with integer keys, which serde cannot
    // read from inside a tagged enum unless the view goes through a Value.
    for preset in Preset::ALL {
        let game = game(preset);
        let frame = ServerFrame::State(Box::new(StateFrame {
            seq: 0,
            view: game.view(Some(0)),
            events: Vec::new(),
            deadline_ms: Some(41_250),
            stats: None,
        }));
        let text = frame.to_text();
        assert!(text.starts_with(r#"{"type":"state","seq":0,"view":{"seat":0,"#));
        assert!(
            text.ends_with(r#""events":[],"deadline_ms":41250}"#),
            "{text}"
        );
        let read: ServerFrame = serde_json::from_str(&text).expect("a state frame reads back");
        assert_eq!(read, frame, "{preset:?}");
    }
}

/// The state frame of the fixtures whose view holds `legal_targets`: seat 0
/// of a game of three on 6×6 seas (one boat each) at the first salvo round.
fn salvo_round_frame() -> ServerFrame {
    let mut game = Game::new(&Setup {
        preset: Preset::Classic,
        seats: 3,
        seed: 7,
        options: Options {
            cols: Some(6),
            rows: Some(6),
            fleet: Some(vec![CustomShip {
                id: "boat".into(),
                len: 2,
                count: 1,
            }]),
            ..Options::default()
        },
        teams: None,
    })
    .expect("a valid setup");
    for seat in 0..3 {
        game.apply(Command::PlaceRandom { seat })
            .expect("a fleet is placed");
    }
    ServerFrame::State(Box::new(StateFrame {
        seq: 0,
        view: game.view(Some(0)),
        events: Vec::new(),
        deadline_ms: Some(90_000),
        stats: None,
    }))
}

#[test]
fn the_legal_targets_of_a_salvo_round_are_on_the_wire() {
    let text = salvo_round_frame().to_text();
    assert!(
        text.contains(r#""legal_targets":{"waters":[{"board":1,"targetable_cells":36,"shots_due":2},{"board":2,"targetable_cells":36,"shots_due":2}],"volley":false}"#),
        "{text}"
    );
    assert!(
        SERVER_FRAMES.lines().any(|line| line == text),
        "the fixtures hold the salvo round's frame:\n{text}"
    );
}

#[test]
fn a_room_setup_is_stored_and_sent_alike() {
    let setup = RoomSetup {
        preset: Preset::Classic,
        seats: 2,
        options: Options::default(),
        teams: None,
        public: true,
        rated: false,
        language: Some("pt-BR".into()),
    };
    let text = serde_json::to_string(&setup).unwrap();
    assert_eq!(
        text,
        r#"{"preset":"classic","seats":2,"options":{},"teams":null,"public":true,"rated":false,"language":"pt-BR"}"#
    );
    // Setups stored before `public`, `rated` and `language` still read.
    let old: RoomSetup = serde_json::from_str(r#"{"preset":"space","seats":3}"#).unwrap();
    assert_eq!((old.public, old.rated, old.language), (false, false, None));
    assert_eq!(
        RoomPhase::from(game(Preset::Classic).phase()),
        RoomPhase::Placement
    );
}

#[test]
fn every_client_frame_type_reads_and_writes_back() {
    let frames = [
        r#"{"type":"hello","token":null,"nickname":"Ana","lang":"en"}"#,
        r#"{"type":"create_room","preset":"space","seats":3,"options":{"credits":120},"teams":null,"bots":[{"seat":1,"level":"admiral"}],"public":true,"rated":true}"#,
        r#"{"type":"join_room","code":"K7QM2PXWAB","as":"spectator"}"#,
        r#"{"type":"set_seat","seat":2,"occupant":"bot","level":"easy"}"#,
        r#"{"type":"set_options","seats":4,"teams":[0,1,0,1],"public":false}"#,
        r#"{"type":"start"}"#,
        r#"{"type":"command","command":{"cmd":"place_random"}}"#,
        r#"{"type":"check_layout","ships":[{"type":"cruiser","at":[0,0],"rot":1}],"id":3}"#,
        r#"{"type":"random_layout","fixed":[]}"#,
        r#"{"type":"preview_action","action":{"kind":"bombard","board":1,"line":{"row":3}},"id":9}"#,
        r#"{"type":"chat","text":"gg"}"#,
        r#"{"type":"resign"}"#,
        r#"{"type":"rematch"}"#,
        r#"{"type":"decline_rematch"}"#,
        r#"{"type":"leave"}"#,
        r#"{"type":"my_games"}"#,
        r#"{"type":"ping","id":9007199254740991}"#,
        r#"{"type":"quick_match","preset":"italia"}"#,
        r#"{"type":"cancel_match"}"#,
        r#"{"type":"accept_bot"}"#,
        r#"{"type":"open_rooms"}"#,
        r#"{"type":"leaderboard","preset":"shared"}"#,
        r#"{"type":"history"}"#,
    ];
    let mut kinds = std::collections::BTreeSet::new();
    for text in frames {
        let (frame, id) = parse(text).unwrap_or_else(|e| panic!("{text}: {:?}", e.refusal));
        assert_eq!(frame.to_text_with_id(id), text);
        assert!(id.is_none_or(|id| id <= MAX_REQUEST_ID));
        kinds.insert(frame.kind());
    }
    assert_eq!(kinds.len(), frames.len());
    assert!(matches!(
        parse(r#"{"type":"quick_match"}"#),
        Ok((
            ClientFrame::QuickMatch {
                preset: Preset::Classic
            },
            None
        ))
    ));
}
