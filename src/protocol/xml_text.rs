//! The indented XML text that [`to_xml`](super::to_xml) writes into, and the
//! attribute text of a tri-state value: the text layer under the document
//! writer (`write`) and every message type's own writing.

use quick_xml::escape::escape;

use super::values::{Field, SisValue};

/// An indented XML text being written, one element per line.
#[derive(Debug, Default)]
pub(crate) struct XmlOut {
    pub(super) buf: String,
    depth: usize,
}

impl XmlOut {
    fn start_tag(&mut self, name: &str, attributes: &[(&str, Option<String>)]) {
        for _ in 0..self.depth {
            self.buf.push_str("  ");
        }
        self.buf.push('<');
        self.buf.push_str(name);
        for (key, value) in attributes {
            if let Some(value) = value {
                self.buf.push(' ');
                self.buf.push_str(key);
                self.buf.push_str("=\"");
                self.buf.push_str(&escape(value.as_str()));
                self.buf.push('"');
            }
        }
        self.buf.push('>');
    }

    /// Opens an element that holds elements; attributes valued `None` are left out.
    pub fn open(&mut self, name: &str, attributes: &[(&str, Option<String>)]) {
        self.start_tag(name, attributes);
        self.buf.push('\n');
        self.depth += 1;
    }

    /// Closes the element opened last.
    pub fn close(&mut self, name: &str) {
        self.depth = self.depth.saturating_sub(1);
        for _ in 0..self.depth {
            self.buf.push_str("  ");
        }
        self.buf.push_str("</");
        self.buf.push_str(name);
        self.buf.push_str(">\n");
    }

    /// Writes an element with attributes and text on one line.
    pub fn text_element(&mut self, name: &str, attributes: &[(&str, Option<String>)], text: &str) {
        self.start_tag(name, attributes);
        self.buf.push_str(&escape(text));
        self.buf.push_str("</");
        self.buf.push_str(name);
        self.buf.push_str(">\n");
    }

    /// Writes a tri-state element: nothing, `<X></X>`, or `<X>value</X>`.
    pub fn leaf<T: SisValue>(&mut self, name: &str, field: &Field<T>) {
        match field {
            Field::Absent => {}
            Field::Empty => self.text_element(name, &[], ""),
            Field::Value(v) => self.text_element(name, &[], &v.to_sis()),
        }
    }
}

/// A tri-state attribute's text: `None` leaves the attribute out, `""` writes it empty.
pub(crate) fn attribute_text<T: SisValue>(field: &Field<T>) -> Option<String> {
    match field {
        Field::Absent => None,
        Field::Empty => Some(String::new()),
        Field::Value(v) => Some(v.to_sis()),
    }
}
