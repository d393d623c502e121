//! Runs fuzz inputs through the harness outside libFuzzer and prints the
//! session: what the server read (the input as a session) and wrote, then
//! checks the invariants (a violation panics, as under the fuzzer).
//!
//! cargo run --release --example replay -- [--decode] FILE...

fn main() {
    let mut decode = false;
    for arg in std::env::args().skip(1) {
        if arg == "--decode" {
            decode = true;
            continue;
        }
        let data = std::fs::read(&arg).unwrap_or_else(|err| panic!("{arg}: {err}"));
        let input = if decode {
            mcp_fuzz::generate::decode_input(&data)
        } else {
            data
        };
        mcp_fuzz::install_panic_hook();
        let session = mcp_fuzz::run_session(&input);
        println!(
            "=== {arg}: {} bytes in, {} bytes out",
            input.len(),
            session.output.len()
        );
        for line in input.split(|&b| b == b'\n') {
            let text = String::from_utf8_lossy(line);
            let shown: String = text.chars().take(300).collect();
            if !line.is_empty() {
                println!(
                    ">> {shown}{}",
                    if text.len() > shown.len() { " …" } else { "" }
                );
            }
        }
        for line in session
            .output
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
        {
            println!("<< {}", String::from_utf8_lossy(line));
        }
        mcp_fuzz::check(&input, &session);
        println!("=== invariants hold");
    }
}
