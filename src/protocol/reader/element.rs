//! One element of the tree, and its step in a path.

use std::borrow::Cow;
use std::fmt;

/// Elements that repeat by design; their path segment always carries `[n]`.
const REPEATING: &[&str] = &[
    "FLTR", "FLOP", "GTDT", "CKDT", "CLDT", "PSDT", "CHDT", "CHOT", "ABTM", "DELY", "ROUT", "ERUT",
    "PSHT", "TIPT", "PORT", "SRVT", "VIPF", "VIPT",
];

/// One element of the document, with its text joined and its attributes unescaped.
#[derive(Debug)]
pub(crate) struct Element<'a> {
    pub name: Cow<'a, str>,
    /// 1-based position among the siblings of the same name.
    pub index: usize,
    pub attributes: Vec<(Cow<'a, str>, Cow<'a, str>)>,
    pub children: Vec<Element<'a>>,
    /// Character data; meaningful only for an element without children.
    pub text: Cow<'a, str>,
}

impl<'a> Element<'a> {
    pub fn new(name: Cow<'a, str>) -> Element<'a> {
        Element {
            name,
            index: 1,
            attributes: Vec::new(),
            children: Vec::new(),
            text: Cow::Borrowed(""),
        }
    }

    /// The same element owning its name and attributes (it has no children or text yet).
    pub fn into_owned(self) -> Element<'static> {
        Element {
            name: Cow::Owned(self.name.into_owned()),
            index: self.index,
            attributes: self
                .attributes
                .into_iter()
                .map(|(k, v)| (Cow::Owned(k.into_owned()), Cow::Owned(v.into_owned())))
                .collect(),
            children: Vec::new(),
            text: Cow::Owned(self.text.into_owned()),
        }
    }

    /// This element's step in a path: `FLTR[2]`, `SODT`.
    #[cfg(test)]
    pub fn segment(&self) -> String {
        Segment(self).to_string()
    }

    /// The text with the surrounding whitespace removed, as every SIS value is read.
    pub fn trimmed_text(&self) -> &str {
        trim_xml(&self.text)
    }

    /// Whether the element says nothing: no child, no text, no attribute with a value.
    pub fn is_blank(&self) -> bool {
        self.children.is_empty()
            && self.trimmed_text().is_empty()
            && self.attributes.iter().all(|(_, v)| trim_xml(v).is_empty())
    }

    /// The trimmed value of an attribute, if the attribute is there.
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| trim_xml(v))
    }
}

/// A path step, written straight into the error text: repeating elements, and any element
/// after its first occurrence, get `[n]`.
pub(crate) struct Segment<'e, 'a>(pub &'e Element<'a>);

impl fmt::Display for Segment<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Element { name, index, .. } = self.0;
        if *index > 1 || REPEATING.contains(&&**name) {
            write!(f, "{name}[{index}]")
        } else {
            f.write_str(name)
        }
    }
}

/// XML whitespace only (space, tab, CR, LF): an ideographic space is content.
pub(crate) fn trim_xml(s: &str) -> &str {
    let is_space = |b: &u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n');
    let bytes = s.as_bytes();
    let Some(start) = bytes.iter().position(|b| !is_space(b)) else {
        return "";
    };
    let end = bytes
        .iter()
        .rposition(|b| !is_space(b))
        .map_or(start, |i| i + 1);
    // Both ends sit next to an ASCII byte, so they are character boundaries.
    &s[start..end]
}
