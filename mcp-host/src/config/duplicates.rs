//! A server name an `mcp.json` gives twice, found in the text (serde_json
//! keeps the last of duplicate keys silently).

#[allow(clippy::wildcard_imports)]
use super::*;

/// The first server name that `key`'s object gives twice. Runs on text
/// already known to be JSON with `key` an object.
pub(super) fn duplicate_server(text: &str, key: &'static str) -> Option<String> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let names = RootNames(key).deserialize(&mut deserializer).ok()??;
    let mut seen = BTreeSet::new();
    names.into_iter().find(|name| !seen.insert(name.clone()))
}

/// Reads the top level and keeps the names of `.0`'s object, in file order.
struct RootNames(&'static str);

impl<'de> DeserializeSeed<'de> for RootNames {
    type Value = Option<Vec<String>>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RootNames {
    type Value = Option<Vec<String>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(name) = map.next_key::<String>()? {
            if name == self.0 {
                found = Some(map.next_value_seed(Names)?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// The keys of one object, in file order.
struct Names;

impl<'de> DeserializeSeed<'de> for Names {
    type Value = Vec<String>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Names {
    type Value = Vec<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut names = Vec::new();
        while let Some((name, IgnoredAny)) = map.next_entry::<String, IgnoredAny>()? {
            names.push(name);
        }
        Ok(names)
    }
}
