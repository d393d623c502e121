//! A serializer that produces nothing and fails on the first NaN or
//! infinite float, so `serde_path_to_error` can say where it is.

use serde::ser::{self, Serialize};
use std::fmt;

/// The float that is not finite (`NaN`, `inf`, `-inf`).
#[derive(Debug)]
pub(crate) struct NonFinite(String);

impl fmt::Display for NonFinite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NonFinite {}

impl ser::Error for NonFinite {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        NonFinite(msg.to_string())
    }
}

pub(crate) struct Check;

fn float(value: f64) -> Result<(), NonFinite> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(NonFinite(value.to_string()))
    }
}

/// Every compound visits its elements with [`Check`].
macro_rules! compound {
    ($($trait:ident { $($method:ident($($arg:ident: $ty:ty),*);)* })*) => {$(
        impl ser::$trait for Check {
            type Ok = ();
            type Error = NonFinite;
            $(
                fn $method<T: Serialize + ?Sized>(&mut self, $($arg: $ty,)* value: &T) -> Result<(), NonFinite> {
                    $(let _ = $arg;)*
                    value.serialize(Check)
                }
            )*
            fn end(self) -> Result<(), NonFinite> {
                Ok(())
            }
        }
    )*};
}

compound! {
    SerializeSeq { serialize_element(); }
    SerializeTuple { serialize_element(); }
    SerializeTupleStruct { serialize_field(); }
    SerializeTupleVariant { serialize_field(); }
    SerializeStruct { serialize_field(key: &'static str); }
    SerializeStructVariant { serialize_field(key: &'static str); }
}

impl ser::SerializeMap for Check {
    type Ok = ();
    type Error = NonFinite;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), NonFinite> {
        key.serialize(Check)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), NonFinite> {
        value.serialize(Check)
    }
    fn end(self) -> Result<(), NonFinite> {
        Ok(())
    }
}

impl ser::Serializer for Check {
    type Ok = ();
    type Error = NonFinite;
    type SerializeSeq = Check;
    type SerializeTuple = Check;
    type SerializeTupleStruct = Check;
    type SerializeTupleVariant = Check;
    type SerializeMap = Check;
    type SerializeStruct = Check;
    type SerializeStructVariant = Check;

    fn serialize_bool(self, _: bool) -> Result<(), NonFinite> {
        Ok(())
    }
    fn serialize_i8(self, _: i8) -> Result<(), NonFinite> {
        Ok(())
    }
    fn serialize_i16(self, _: i16) -> Result<(), NonFinite> {
        Ok(())
    }
    fn serialize_i32(self, _: i32) -> Result<(), NonFinite> {
        Ok(())
    }
    fn serialize_i64(self, _: i64) -> Result<(), NonFinite> {
        Ok(())
    }
    fn serialize_u8(self, _: u8) -> Result<(), NonFinite> {
        Ok(())
    }
    fn serialize_u16(self, _: u16) -> Result<(), NonFinite> {
        Ok(())
    }
    fn serialize_u32(self, _: u32) -> Result<(), NonFinite> {
        Ok(())
    }
    fn serialize_u64(self, _: u64) -> Result<(), NonFinite> {
        Ok(())
    }
    fn serialize_f32(self, value: f32) -> Result<(), NonFinite> {
        float(value.into())
    }
    fn serialize_f64(self, value: f64) -> Result<(), NonFinite> {
        float(value)
    }
    fn serialize_char(self, _: char) -> Result<(), NonFinite> {
        Ok(())
    }
    fn serialize_str(self, _: &str) -> Result<(), NonFinite> {
        Ok(())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), NonFinite> {
        Ok(())
    }
    fn serialize_none(self) -> Result<(), NonFinite> {
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), NonFinite> {
        value.serialize(Check)
    }
    fn serialize_unit(self) -> Result<(), NonFinite> {
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), NonFinite> {
        Ok(())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> Result<(), NonFinite> {
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), NonFinite> {
        value.serialize(Check)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        value: &T,
    ) -> Result<(), NonFinite> {
        value.serialize(Check)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Check, NonFinite> {
        Ok(Check)
    }
    fn serialize_tuple(self, _: usize) -> Result<Check, NonFinite> {
        Ok(Check)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Check, NonFinite> {
        Ok(Check)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Check, NonFinite> {
        Ok(Check)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Check, NonFinite> {
        Ok(Check)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Check, NonFinite> {
        Ok(Check)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Check, NonFinite> {
        Ok(Check)
    }
}
