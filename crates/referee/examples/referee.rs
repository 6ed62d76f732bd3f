//! The referee alone, for working on it without building the whole binary:
//! `cargo run -p broadside-referee --example referee < commands.jsonl`.

fn main() -> std::io::Result<()> {
    let stdin = std::io::stdin();
    broadside_referee::run(stdin.lock(), std::io::stdout().lock())
}
