//! The portable schema profile, checked two ways: snapshots of the generated
//! JSON, and agreement with the deserializer over a fixed set of values per
//! type (a value the schema accepts must deserialize, and the other way round).
//!
//! The one deliberate difference: an explicit `null` for an optional property
//! deserializes (as absent) but the schema, which advertises the plain type,
//! refuses it. Those cases are listed as `StricterSchema`.

use mcpfn_runtime::schema::{for_deserialize, input_schema};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};

#[derive(Debug, PartialEq)]
enum Expect {
    /// Schema and deserializer agree.
    Agree,
    /// Only the deserializer accepts (explicit null for an optional field).
    StricterSchema,
}

fn check<T: DeserializeOwned + JsonSchema>(values: &[(Value, Expect)]) -> Value {
    let schema = for_deserialize::<T>();
    assert_portable(&schema);
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    for (value, expect) in values {
        let schema_ok = validator.is_valid(value);
        let serde_ok = serde_json::from_value::<T>(value.clone()).is_ok();
        match expect {
            Expect::Agree => assert_eq!(
                schema_ok,
                serde_ok,
                "{} : schema says {schema_ok}, deserializer says {serde_ok} for {value}\nschema: {schema:#}",
                std::any::type_name::<T>()
            ),
            Expect::StricterSchema => assert!(
                serde_ok && !schema_ok,
                "{value}: expected only the deserializer to accept it"
            ),
        }
    }
    schema
}

/// The profile's structural rules, anywhere in the schema.
fn assert_portable(schema: &Value) {
    assert!(schema.get("$schema").is_none(), "no $schema: {schema}");
    for key in ["oneOf", "anyOf"] {
        if let Some(options) = schema.get(key) {
            assert!(schema.get("type") != Some(&json!("object")) || options.is_array());
        }
    }
    fn walk(value: &Value, root: &Value) {
        match value {
            Value::Object(map) => {
                if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
                    let name = reference
                        .strip_prefix("#/$defs/")
                        .unwrap_or_else(|| panic!("$ref outside the schema: {reference}"));
                    assert!(
                        root["$defs"].get(name).is_some(),
                        "dangling $ref {reference}"
                    );
                }
                if let Some(Value::Array(types)) = map.get("type") {
                    assert!(
                        !types.contains(&json!("null")) || map.get("required").is_some(),
                        "null union: {value}"
                    );
                }
                map.values().for_each(|v| walk(v, root));
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, root)),
            _ => {}
        }
    }
    walk(schema, schema);
}

use Expect::{Agree, StricterSchema};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Primitives {
    small: u8,
    signed: i32,
    real: f64,
    flag: bool,
    text: String,
}

#[test]
fn primitives() {
    let ok = json!({"small": 255, "signed": -5, "real": 1.5, "flag": true, "text": "x"});
    let schema = check::<Primitives>(&[
        (ok.clone(), Agree),
        (
            json!({"small": 256, "signed": 0, "real": 0, "flag": false, "text": ""}),
            Agree,
        ),
        (
            json!({"small": -1, "signed": 0, "real": 0, "flag": false, "text": ""}),
            Agree,
        ),
        (
            json!({"small": 1.5, "signed": 0, "real": 0, "flag": false, "text": ""}),
            Agree,
        ),
        (
            json!({"small": 1, "signed": "0", "real": 0, "flag": false, "text": ""}),
            Agree,
        ),
        (
            json!({"small": 1, "signed": 0, "real": 0, "flag": 1, "text": ""}),
            Agree,
        ),
        (
            json!({"small": 1, "signed": 0, "real": 0, "flag": true}),
            Agree,
        ),
        (
            json!({"small": 1, "signed": 0, "real": 0, "flag": true, "text": "", "extra": 1}),
            Agree,
        ),
        (json!([1, 2]), Agree),
    ]);
    assert_eq!(schema["properties"]["small"]["maximum"], 255);
    assert_eq!(
        schema["required"],
        json!(["small", "signed", "real", "flag", "text"])
    );
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Optionals {
    name: Option<String>,
    count: Option<u32>,
    #[serde(default)]
    level: u8,
    needed: bool,
}

#[test]
fn option_and_default_are_optional_with_a_plain_type() {
    let schema = check::<Optionals>(&[
        (json!({"needed": true}), Agree),
        (
            json!({"needed": true, "name": "a", "count": 3, "level": 2}),
            Agree,
        ),
        (json!({"name": "a"}), Agree),
        (json!({"needed": true, "count": -1}), Agree),
        (json!({"needed": true, "name": 5}), Agree),
        (json!({"needed": true, "name": null}), StricterSchema),
        (json!({"needed": true, "count": null}), StricterSchema),
    ]);
    assert_eq!(schema["required"], json!(["needed"]));
    assert_eq!(schema["properties"]["name"], json!({"type": "string"}));
    assert_eq!(schema["properties"]["count"]["type"], "integer");
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Collections {
    list: Vec<i64>,
    map: HashMap<String, bool>,
    sorted: BTreeMap<String, Vec<String>>,
}

#[test]
fn vectors_and_maps() {
    check::<Collections>(&[
        (json!({"list": [], "map": {}, "sorted": {}}), Agree),
        (
            json!({"list": [1, -2], "map": {"a": true}, "sorted": {"k": ["v"]}}),
            Agree,
        ),
        (json!({"list": [1.5], "map": {}, "sorted": {}}), Agree),
        (json!({"list": "1", "map": {}, "sorted": {}}), Agree),
        (json!({"list": [], "map": {"a": 1}, "sorted": {}}), Agree),
        (json!({"list": [], "map": [], "sorted": {"k": [1]}}), Agree),
    ]);
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Point {
    x: f64,
    y: f64,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Path {
    start: Point,
    points: Vec<Point>,
    end: Option<Point>,
}

#[test]
fn nested_structs_are_inlined() {
    let schema = check::<Path>(&[
        (json!({"start": {"x": 0, "y": 0}, "points": []}), Agree),
        (
            json!({"start": {"x": 0, "y": 0}, "points": [{"x": 1, "y": 2}], "end": {"x": 3, "y": 4}}),
            Agree,
        ),
        (json!({"start": {"x": 0}, "points": []}), Agree),
        (
            json!({"start": {"x": 0, "y": 0}, "points": [{"x": "1", "y": 2}]}),
            Agree,
        ),
        (
            json!({"start": {"x": 0, "y": 0}, "points": [], "end": null}),
            StricterSchema,
        ),
    ]);
    assert!(
        schema.get("$defs").is_none(),
        "non-recursive types are inlined: {schema}"
    );
    assert_eq!(schema["properties"]["start"]["type"], "object");
}

/// Colour of a thing.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum Colour {
    /// The colour of blood
    Red,
    Green,
    #[serde(rename = "BLUE")]
    Blue,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Paint {
    colour: Colour,
    second: Option<Colour>,
}

#[test]
fn unit_enums_are_string_enums() {
    let schema = check::<Paint>(&[
        (json!({"colour": "red"}), Agree),
        (json!({"colour": "BLUE", "second": "green"}), Agree),
        (json!({"colour": "Red"}), Agree),
        (json!({"colour": "purple"}), Agree),
        (json!({"colour": 1}), Agree),
    ]);
    let colour = &schema["properties"]["colour"];
    assert_eq!(colour["type"], "string");
    let sorted = |v: &Value| {
        let mut names: Vec<String> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_owned())
            .collect();
        names.sort();
        names
    };
    assert_eq!(sorted(&colour["enum"]), ["BLUE", "green", "red"]);
    assert!(colour.get("oneOf").is_none());
    assert_eq!(
        colour["description"],
        "Colour of a thing. (red: The colour of blood)"
    );
    assert_eq!(
        sorted(&schema["properties"]["second"]["enum"]),
        ["BLUE", "green", "red"]
    );
}

#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[allow(dead_code)]
enum Shape {
    Circle { radius: f64 },
    Rect { w: f64, h: f64 },
}

#[derive(Deserialize, JsonSchema)]
#[serde(tag = "t", content = "c")]
#[allow(dead_code)]
enum Adjacent {
    Num(i32),
    Word(String),
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
enum External {
    Stop,
    Go { speed: u8 },
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Drawing {
    shape: Shape,
    adjacent: Adjacent,
    external: External,
}

#[test]
fn tagged_enums() {
    check::<Drawing>(&[
        (
            json!({"shape": {"kind": "circle", "radius": 1}, "adjacent": {"t": "Num", "c": 1}, "external": "Stop"}),
            Agree,
        ),
        (
            json!({"shape": {"kind": "rect", "w": 1, "h": 2}, "adjacent": {"t": "Word", "c": "x"}, "external": {"Go": {"speed": 3}}}),
            Agree,
        ),
        (
            json!({"shape": {"kind": "rect", "w": 1}, "adjacent": {"t": "Num", "c": 1}, "external": "Stop"}),
            Agree,
        ),
        (
            json!({"shape": {"kind": "triangle"}, "adjacent": {"t": "Num", "c": 1}, "external": "Stop"}),
            Agree,
        ),
        (
            json!({"shape": {"kind": "circle", "radius": 1}, "adjacent": {"t": "Num", "c": "x"}, "external": "Stop"}),
            Agree,
        ),
        (
            json!({"shape": {"kind": "circle", "radius": 1}, "adjacent": {"t": "Num", "c": 1}, "external": "Go"}),
            Agree,
        ),
        (
            json!({"shape": {"kind": "circle", "radius": 1}, "adjacent": {"t": "Num", "c": 1}, "external": {"Go": {"speed": 300}}}),
            Agree,
        ),
    ]);
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Base {
    id: u32,
    #[serde(rename = "displayName")]
    display_name: String,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Renamed {
    #[serde(flatten)]
    base: Base,
    #[serde(default = "default_limit")]
    limit: u16,
    #[serde(rename = "type")]
    kind: String,
}

fn default_limit() -> u16 {
    10
}

#[test]
fn rename_default_and_flatten() {
    let schema = check::<Renamed>(&[
        (json!({"id": 1, "displayName": "a", "type": "t"}), Agree),
        (
            json!({"id": 1, "displayName": "a", "type": "t", "limit": 5}),
            Agree,
        ),
        (json!({"id": 1, "display_name": "a", "type": "t"}), Agree),
        (json!({"id": 1, "displayName": "a", "kind": "t"}), Agree),
        (json!({"displayName": "a", "type": "t"}), Agree),
        (
            json!({"id": 1, "displayName": "a", "type": "t", "limit": 70000}),
            Agree,
        ),
    ]);
    assert_eq!(schema["required"], json!(["id", "displayName", "type"]));
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Tree {
    name: String,
    children: Vec<Tree>,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Forest {
    trees: Vec<Tree>,
    biggest: Option<Box<Tree>>,
}

#[test]
fn recursive_types_use_local_refs() {
    let leaf = json!({"name": "leaf", "children": []});
    let schema = check::<Forest>(&[
        (json!({"trees": []}), Agree),
        (
            json!({"trees": [{"name": "a", "children": [leaf.clone(), {"name": "b", "children": [leaf.clone()]}]}]}),
            Agree,
        ),
        (
            json!({"trees": [{"name": "a", "children": [{"name": 1, "children": []}]}]}),
            Agree,
        ),
        (
            json!({"trees": [{"name": "a", "children": [{"name": "b"}]}]}),
            Agree,
        ),
        (json!({"trees": [], "biggest": leaf}), Agree),
    ]);
    assert!(schema["$defs"].get("Tree").is_some());
    // A recursive root names itself in $defs, so the schema survives embedding.
    let root = check::<Tree>(&[(
        json!({"name": "r", "children": [{"name": "c", "children": []}]}),
        Agree,
    )]);
    assert_eq!(
        root["properties"]["children"]["items"]["$ref"],
        "#/$defs/Tree"
    );
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

#[test]
fn no_arguments_is_a_closed_empty_object() {
    assert_eq!(
        input_schema::<NoArgs>(),
        json!({"type": "object", "additionalProperties": false})
    );
}
