//! How a client (and a host on it) writes what people and models read:
//! numbers grouped by thousands, a server's words cut and made safe.

/// `n` with its thousands separated: `14,680,064`.
pub fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// At most `max` bytes of `text` (cut at a character boundary), with
/// control characters replaced: a server's words go into our log and into
/// error messages a terminal shows, where escape sequences must not pass.
pub fn excerpt(text: &str, max: usize) -> String {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut out: String = text[..end]
        .trim_end()
        .chars()
        .map(|c| {
            if c.is_control() && c != '\t' {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect();
    if end < text.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{excerpt, grouped};

    #[test]
    fn excerpts_are_cut_and_cleaned() {
        assert_eq!(excerpt("plain", 100), "plain");
        assert_eq!(excerpt("\u{1b}[31mred\n", 100), "\u{FFFD}[31mred");
        assert_eq!(excerpt("ééé", 3), "é…");
    }

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(100), "100");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_000), "1,000");
        assert_eq!(grouped(100_000), "100,000");
        assert_eq!(grouped(1_234_567), "1,234,567");
        assert_eq!(grouped(14_680_064), "14,680,064");
    }
}
