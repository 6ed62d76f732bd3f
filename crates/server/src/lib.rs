//! The Broadside server: rooms, WebSocket protocol, persistence, the embedded web client.
