//! A string as JSON text, written as serde_json writes it but checked for
//! characters to escape eight bytes at a time: serde_json looks each byte up
//! in a table, one at a time, which for a megabyte of resource contents
//! was the largest cost of a `resources/read` (BENCHMARKS.md).

/// Bytes checked together, as one `u64`; a word that needs no escape is
/// copied with its neighbours.
const WORD: usize = 8;

/// Whether `byte` is escaped in a JSON string: a control character, `"`
/// or `\`.
fn escaped(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// Whether any of the 8 bytes of `word` is [`escaped`], in a few integer
/// operations (no vector instructions needed: the release profile
/// optimizes for size): a byte below 0x20, or one that is `"` or `\`
/// (zero once xor-ed with it).
fn any_escaped(word: u64) -> bool {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    let below = |word: u64, n: u8| word.wrapping_sub(ONES * u64::from(n)) & !word & HIGHS;
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    below(word, 0x20) | below(quote, 1) | below(backslash, 1) != 0
}

/// Appends `text` to `out` as a JSON string, quotes included, byte for
/// byte as `serde_json::to_writer` would (`\n`-style escapes where JSON
/// has them, `\u00XX` with lower-case hex for other control characters).
pub(crate) fn write_str(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    // Copied up to here.
    let mut copied = 0;
    let mut at = 0;
    while at < bytes.len() {
        if let Some(word) = bytes.get(at..at + WORD)
            && let Ok(word) = <[u8; WORD]>::try_from(word)
            && !any_escaped(u64::from_ne_bytes(word))
        {
            at += WORD;
            continue;
        }
        // A word with an escape, or the last few bytes: one at a time.
        let end = (at + WORD).min(bytes.len());
        for (offset, &byte) in bytes[at..end].iter().enumerate() {
            if escaped(byte) {
                out.extend_from_slice(&bytes[copied..at + offset]);
                escape(out, byte);
                copied = at + offset + 1;
            }
        }
        at = end;
    }
    out.extend_from_slice(&bytes[copied..]);
    out.push(b'"');
}

/// The escape of `byte`, one that [`escaped`] is true of.
fn escape(out: &mut Vec<u8>, byte: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short = match byte {
        b'"' => b'"',
        b'\\' => b'\\',
        0x08 => b'b',
        0x0c => b'f',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        _ => {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(byte >> 4)]);
            out.push(HEX[usize::from(byte & 0xf)]);
            return;
        }
    };
    out.push(b'\\');
    out.push(short);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(text: &str) -> String {
        let mut out = b"x".to_vec();
        write_str(&mut out, text);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn every_string_is_written_as_serde_json_writes_it() {
        let every_ascii: String = (0u8..=0x7f).map(char::from).collect();
        let mut cases = vec![
            String::new(),
            "plain".to_owned(),
            every_ascii.clone(),
            every_ascii.repeat(3),
            "é ☀ \u{10ffff} \"quoted\" back\\slash".to_owned(),
        ];
        for near in ["\u{1f}", " ", "!", "#", "[", "]", "\u{7f}", "é"] {
            for lane in 0..9 {
                cases.push(format!(
                    "{}{near}{}",
                    "x".repeat(lane),
                    "x".repeat(16 - lane)
                ));
            }
        }
        // An escape at every place around the word edges; bytes just
        // beside the escaped ones (0x1f/0x20, 0x21/0x23, 0x5b/0x5d, 0x7f
        // and above) in every lane.
        for len in [7, 8, 9, 15, 16, 17, 33] {
            for at in [0, 1, 6, 7, 8, 9, len - 1] {
                if at < len {
                    let mut text = "x".repeat(len);
                    text.replace_range(at..at + 1, "\n");
                    cases.push(text);
                }
            }
        }
        for text in cases {
            let expected = format!("x{}", serde_json::to_string(&text).unwrap());
            assert_eq!(written(&text), expected, "{text:?}");
        }
    }
}
