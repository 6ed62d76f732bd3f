//! The Broadside terminal client.
