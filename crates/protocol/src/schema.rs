//! The JSON Schema of the protocol, generated from the types with schemars and
//! committed at `docs/protocol.schema.json` (a test regenerates it).
//!
//! One document for both directions: client frames are described as the
//! server reads them (serde's *deserialize* contract: fields with defaults
//! may be left out), server frames and replays as the server writes them (the
//! *serialize* contract: every field that is always sent is required). A type
//! that reads differently from how it is written (e.g. `Options`, whose
//! fields are optional either way, is shared, but `Action`, whose reserve's
//! `null`s are always written, is not) appears twice, the reading one named
//! `<Name>Input`.

use std::collections::BTreeMap;

use broadside_engine::Intent;
use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{json, Map, Value};

use crate::{ApiError, ClientEnvelope, Replay, ServerFrame};

/// The whole schema document, keys sorted (so that it reads the same whatever
/// serde_json's features).
pub fn document() -> Value {
    let mut reading = SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator();
    let client = reading.subschema_for::<ClientEnvelope>();
    let client_defs = reading.take_definitions(true);

    let mut writing = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    let server = writing.subschema_for::<ServerFrame>();
    writing.subschema_for::<Replay>();
    writing.subschema_for::<ApiError>();
    let mut defs = writing.take_definitions(true);

    // The client's definitions that differ from the server's (after their own
    // references are renamed) get their own names.
    let mut renamed: BTreeMap<String, String> = BTreeMap::new();
    loop {
        let before = renamed.len();
        for (name, schema) in &client_defs {
            if renamed.contains_key(name) {
                continue;
            }
            let mut schema = schema.clone();
            rename_refs(&mut schema, &renamed);
            if defs.get(name).is_some_and(|theirs| *theirs != schema) {
                renamed.insert(name.clone(), format!("{name}Input"));
            }
        }
        if renamed.len() == before {
            break;
        }
    }
    for (name, mut schema) in client_defs {
        rename_refs(&mut schema, &renamed);
        let name = renamed.get(&name).cloned().unwrap_or(name);
        defs.entry(name).or_insert(schema);
    }
    let mut client = client.to_value();
    rename_refs(&mut client, &renamed);

    let document = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Broadside WebSocket protocol",
        "description": "Every frame of docs/protocol.md, generated from crates/protocol. \
            A frame is a ClientEnvelope (client to server: a ClientFrame and its optional \
            request id) or a ServerFrame (server to client). Replay and ApiError are the \
            answers of GET /api/games/<ID>.",
        "anyOf": [client, server.to_value()],
        "$defs": Value::Object(defs),
    });
    sorted(document)
}

/// [`document`] as committed: pretty-printed, with a final newline.
pub fn text() -> String {
    let mut text =
        serde_json::to_string_pretty(&document()).expect("a schema is plain JSON and serializes");
    text.push('\n');
    text
}

/// The schema of a `command` frame's `command`: the engine's `Intent`, a
/// command without its `seat` (the server knows it) and without `timeout`
/// (the server's alone).
pub(crate) fn client_command(generator: &mut SchemaGenerator) -> Schema {
    let mut schema = Intent::json_schema(generator);
    schema.insert(
        "description".into(),
        json!(
            "A seat's move (the engine's `Intent`): an engine command without its seat. \
             The server applies it for the connection's own seat; a `seat` written here is not read."
        ),
    );
    schema
}

/// Replaces `#/$defs/<old>` references by `#/$defs/<new>`.
fn rename_refs(value: &mut Value, renamed: &BTreeMap<String, String>) {
    match value {
        Value::Object(object) => {
            if let Some(Value::String(reference)) = object.get_mut("$ref") {
                if let Some(new) = reference
                    .strip_prefix("#/$defs/")
                    .and_then(|name| renamed.get(name))
                {
                    *reference = format!("#/$defs/{new}");
                }
            }
            for value in object.values_mut() {
                rename_refs(value, renamed);
            }
        }
        Value::Array(values) => values.iter_mut().for_each(|v| rename_refs(v, renamed)),
        _ => {}
    }
}

/// The value with every object's keys in sorted order.
fn sorted(value: Value) -> Value {
    match value {
        Value::Object(object) => {
            let mut entries: Vec<(String, Value)> = object.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(key, value)| (key, sorted(value)))
                    .collect::<Map<String, Value>>(),
            )
        }
        Value::Array(values) => Value::Array(values.into_iter().map(sorted).collect()),
        other => other,
    }
}
