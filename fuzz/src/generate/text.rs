//! JSON written as text from the fuzzer's bytes: picks from lists, strings with
//! escapes, numbers of any size, values and objects (duplicate keys kept).

use super::STRINGS;
use arbitrary::{Result, Unstructured};

pub(super) fn pick<'a>(u: &mut Unstructured<'_>, items: &[&'a str]) -> Result<&'a str> {
    u.choose(items).copied()
}

pub(super) fn string(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(match u.int_in_range(0..=5)? {
        0..=2 => format!("\"{}\"", pick(u, STRINGS)?),
        3 => format!("\"{}\"", "x".repeat(u.int_in_range(0..=5000)?)),
        _ => {
            let text: String = u.arbitrary()?;
            serde_json::to_string(&text).unwrap_or_default()
        }
    })
}

pub(super) fn number(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(match u.int_in_range(0..=7)? {
        0 => u.int_in_range(0i64..=20)?.to_string(),
        1 => u.arbitrary::<i64>()?.to_string(),
        2 => u.arbitrary::<u64>()?.to_string(),
        3 => "100000000000000000000000".to_owned(),
        4 => "1.5".to_owned(),
        5 => "-0".to_owned(),
        6 => "1e400".to_owned(),
        _ => {
            let f: f64 = u.arbitrary()?;
            if f.is_finite() {
                format!("{f:?}")
            } else {
                "0.0".to_owned()
            }
        }
    })
}

/// Any JSON value, nested at most `depth` more levels.
pub(super) fn value(u: &mut Unstructured<'_>, depth: u32) -> Result<String> {
    let kinds = if depth == 0 { 5 } else { 7 };
    Ok(match u.int_in_range(0..=kinds)? {
        0 => "null".to_owned(),
        1 => pick(u, &["true", "false"])?.to_owned(),
        2 | 3 => number(u)?,
        4 | 5 => string(u)?,
        6 => {
            let n = u.int_in_range(0..=4)?;
            let items: Result<Vec<String>> = (0..n).map(|_| value(u, depth - 1)).collect();
            format!("[{}]", items?.join(","))
        }
        _ => {
            let n = u.int_in_range(0..=4)?;
            let mut fields = Vec::new();
            for _ in 0..n {
                fields.push((string(u)?, value(u, depth - 1)?));
            }
            object_raw(&fields)
        }
    })
}

pub(super) fn object_raw(fields: &[(String, String)]) -> String {
    let body: Vec<String> = fields.iter().map(|(k, v)| format!("{k}:{v}")).collect();
    format!("{{{}}}", body.join(","))
}

/// Builds an object from `(key, raw value)` pairs; keys are plain names.
pub(super) struct Obj(Vec<(String, String)>);

impl Obj {
    pub(super) fn new() -> Obj {
        Obj(Vec::new())
    }
    pub(super) fn field(&mut self, key: &str, raw: String) {
        self.0.push((format!("\"{key}\""), raw));
    }
    pub(super) fn maybe(
        &mut self,
        u: &mut Unstructured<'_>,
        key: &str,
        raw: impl FnOnce(&mut Unstructured<'_>) -> Result<String>,
    ) -> Result<()> {
        if u.ratio(2, 3)? {
            let raw = raw(u)?;
            self.field(key, raw);
        }
        Ok(())
    }
    pub(super) fn finish(mut self, u: &mut Unstructured<'_>) -> Result<String> {
        // Sometimes a duplicate or unknown key, sometimes reordered.
        if !self.0.is_empty() && u.ratio(1, 16)? {
            let i = u.choose_index(self.0.len())?;
            let dup = self.0[i].clone();
            self.0.push(dup);
        }
        if u.ratio(1, 16)? {
            self.0.push(("\"unknown\"".to_owned(), value(u, 1)?));
        }
        if self.0.len() > 1 && u.ratio(1, 8)? {
            let last = self.0.len() - 1;
            self.0.swap(0, last);
        }
        Ok(object_raw(&self.0))
    }
}
