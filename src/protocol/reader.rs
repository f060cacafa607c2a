//! The XML layer: quick-xml events over `&str` into a small element tree.
//!
//! Owns well-formedness and the lexical rules of SIS: no DOCTYPE, no entities beyond the
//! predefined five, no text mixed with elements, bounded nesting. It must not know any SIS
//! element beyond the few names that repeat (for paths); typing is done in `message/`.
//! The tree is bounded by the size limit checked before this runs.
//!
//! The tree borrows names, attribute values and text from the input: a full-day snapshot
//! has millions of them, and copying each into its own `String` cost more than reading
//! the XML. Only text that had to change (an entity resolved, a line end normalised, text
//! split by a reference) is owned. Paths are formatted only when an error needs one.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use quick_xml::errors::IllFormedError;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::attributes::Attributes;
use quick_xml::events::{BytesEnd, BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

use super::errors::{Position, ProtocolError};

/// No SIS message nests deeper than 6 (MSG/FLOP/VIPF/VIPT/VSCD); the margin is generous,
/// and the bound keeps a hostile `<a><a><a>…` from building a deep tree.
pub(crate) const MAX_DEPTH: usize = 16;

/// The first character of `text` that XML 1.0 does not allow (§2.2 `Char`): the C0
/// controls but tab, LF and CR, and U+FFFE, U+FFFF (surrogates cannot be in a `str`).
/// quick-xml does not check characters; a byte scan first keeps the common case cheap.
pub(crate) fn forbidden_char(text: &str) -> Option<char> {
    let suspect = |b: u8| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || b == 0xEF;
    if !text.bytes().any(suspect) {
        return None;
    }
    text.chars().find(|&c| {
        (c < '\u{20}' && !matches!(c, '\t' | '\n' | '\r')) || c == '\u{FFFE}' || c == '\u{FFFF}'
    })
}

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
    fn new(name: Cow<'a, str>) -> Element<'a> {
        Element {
            name,
            index: 1,
            attributes: Vec::new(),
            children: Vec::new(),
            text: Cow::Borrowed(""),
        }
    }

    /// The same element owning its name and attributes (it has no children or text yet).
    fn into_owned(self) -> Element<'static> {
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

/// Sets up quick-xml the one way both entry points use.
fn configure(reader: &mut Reader<&[u8]>) {
    let config = reader.config_mut();
    config.check_end_names = true;
    config.allow_unmatched_ends = false;
    config.check_comments = true;
    config.allow_dangling_amp = false;
    config.expand_empty_elements = false;
    config.trim_markup_names_in_closing_tags = true;
    // Text is trimmed per value after entity references are put back in place; trimming
    // each text event would eat the spaces around `&amp;`.
    config.trim_text(false);
}

/// Like [`read_document_with`], telling nobody.
#[cfg(test)]
pub(crate) fn read_document(input: &[u8]) -> Result<Element<'_>, ProtocolError> {
    read_document_with(input, |_, _| {})
}

/// Reads a whole document into its root element, telling `on_close(ancestors, element)` of
/// each element as it closes, complete with its children and while it is still in the
/// cache; `ancestors` are the open elements, root first (their children are not in them
/// yet). `on_close` may take what it needs and empty the element.
///
/// # Errors
///
/// As [`Document::read_with`], and the input not UTF-8.
#[cfg(test)]
pub(crate) fn read_document_with<'a>(
    input: &'a [u8],
    on_close: impl FnMut(&[Element<'a>], &mut Element<'a>),
) -> Result<Element<'a>, ProtocolError> {
    Document::decode(input)?.read_with(on_close)
}

/// A document known to be UTF-8, its byte order mark set aside.
pub(crate) struct Document<'a> {
    /// All of it, for positions (which count the mark).
    input: &'a str,
    /// What the reader reads: the input without the mark.
    body: &'a str,
}

/// Where a document may be read in two halves: at a start tag that the first half's reader
/// must find directly inside `parents` (each the first of its name). The second half is
/// read as a run of siblings inside those parents, up to their end.
pub(crate) struct Split {
    parents: &'static [&'static str],
    /// Offset of the `<` of that start tag in the body.
    at: usize,
}

/// What the reader of a second half read: the siblings up to the end tag of their parent,
/// which starts at `end`.
pub(crate) struct Fragment<'a> {
    children: Vec<Element<'a>>,
    end: usize,
}

impl<'a> Document<'a> {
    /// # Errors
    ///
    /// [`ProtocolError::NotWellFormed`] with the position of the first byte that is not
    /// UTF-8.
    pub fn decode(input: &'a [u8]) -> Result<Document<'a>, ProtocolError> {
        let input = match std::str::from_utf8(input) {
            Ok(text) => text,
            Err(e) => {
                let valid = &input[..e.valid_up_to()];
                // The valid prefix is UTF-8 by definition, so positions can be counted in it.
                let prefix = std::str::from_utf8(valid).unwrap_or_default();
                return Err(ProtocolError::NotWellFormed {
                    at: Position::locate(prefix, e.valid_up_to()),
                    reason: "the message is not UTF-8".into(),
                });
            }
        };
        let body = input.strip_prefix('\u{feff}').unwrap_or(input);
        Ok(Document { input, body })
    }

    /// Reads the document into its root element, telling `on_close` of each element as it
    /// closes (see [`read_document_with`]).
    ///
    /// # Errors
    ///
    /// Not well-formed, a DOCTYPE, an unknown entity, stray text between elements, or
    /// nesting deeper than [`MAX_DEPTH`]. Whatever `on_close` finds is its own business,
    /// never an error here.
    pub fn read_with(
        &self,
        on_close: impl FnMut(&[Element<'a>], &mut Element<'a>),
    ) -> Result<Element<'a>, ProtocolError> {
        match TreeBuilder::new(self, on_close).run(0, Until::Eof)? {
            Ran::Read(root) => Ok(root),
            Ran::Paused(_) => unreachable!("a reader told to read to the end reads to it"),
        }
    }

    /// The first start tag of `child` at or past the middle of the document, if there is
    /// one. Only a guess: whether it really sits inside `parents` is known once the first
    /// half has been read up to it.
    pub fn split(&self, parents: &'static [&'static str], child: &'static str) -> Option<Split> {
        let bytes = self.body.as_bytes();
        let mut from = bytes.len() / 2;
        let tag = format!("<{child}");
        loop {
            let found = from + memchr::memmem::find(&bytes[from..], tag.as_bytes())?;
            let after = found + tag.len();
            if matches!(
                bytes.get(after),
                Some(b'>' | b'/' | b' ' | b'\t' | b'\r' | b'\n')
            ) {
                return Some(Split { parents, at: found });
            }
            from = after;
        }
    }

    /// Reads the second half from the split on, as a run of siblings inside `parents`,
    /// telling `on_close` as [`Document::read_with`] does (the parents stand in for the
    /// first half's, without attributes). `None` when it is anything else (an error, text
    /// beside the siblings, no end of their parent): the first half's reader then reads
    /// on by itself, and reports what a reader of the whole finds.
    pub fn read_second_half(
        &self,
        split: &Split,
        on_close: impl FnMut(&[Element<'a>], &mut Element<'a>),
    ) -> Option<Fragment<'a>> {
        let mut builder = TreeBuilder::new(self, on_close);
        for name in split.parents {
            builder
                .open(Element::new(Cow::Borrowed(name)), split.at as u64)
                .ok()?;
        }
        let floor = split.parents.len();
        let Ok(Ran::Paused(end)) = builder.run(split.at, Until::Depth(floor)) else {
            return None;
        };
        let parent = builder.stack.last()?;
        if !trim_xml(&parent.text).is_empty() {
            return None;
        }
        Some(Fragment {
            children: std::mem::take(&mut builder.levels[floor - 1].children),
            end,
        })
    }

    /// Reads the document up to the split, then takes the second half from
    /// `second_half` (the siblings read elsewhere meanwhile) and reads on from their end.
    /// Where the split is not where its guess put it, `second_half` is not called; where
    /// it has nothing, this reads the rest itself. Returns the root, and whether the second
    /// half was used.
    ///
    /// # Errors
    ///
    /// As [`Document::read_with`]. The tree is the one a reader of the whole builds; an
    /// error is one it would report, as far as quick-xml's own checks go; a caller that
    /// must report exactly that reads the whole again on an error.
    pub fn read_halves(
        &self,
        split: &Split,
        on_close: impl FnMut(&[Element<'a>], &mut Element<'a>),
        second_half: impl FnOnce() -> Option<Fragment<'a>>,
    ) -> Result<(Element<'a>, bool), ProtocolError> {
        let mut builder = TreeBuilder::new(self, on_close);
        let paused = match builder.run(0, Until::Offset(split.at))? {
            Ran::Read(root) => return Ok((root, false)),
            Ran::Paused(at) => at,
        };
        let inside_parents = builder.stack.len() == split.parents.len()
            && builder
                .stack
                .iter()
                .zip(split.parents)
                .all(|(open, name)| open.name == *name && open.index == 1);
        let fragment = if inside_parents { second_half() } else { None };
        let used = fragment.is_some();
        let resume = match fragment {
            Some(fragment) => {
                let level = &mut builder.levels[split.parents.len() - 1];
                for mut child in fragment.children {
                    child.index = level.number(&child);
                    level.children.push(child);
                }
                fragment.end
            }
            None => paused,
        };
        match builder.run(resume, Until::Eof)? {
            Ran::Read(root) => Ok((root, used)),
            Ran::Paused(_) => unreachable!("a reader told to read to the end reads to it"),
        }
    }
}

/// How far one run of the reader goes.
#[derive(Clone, Copy)]
enum Until {
    /// The end of the document.
    Eof,
    /// The event that starts at this offset, if one does; read on if none does.
    Offset(usize),
    /// The end tag that would close an element at this depth (one the run did not open).
    Depth(usize),
}

enum Ran<'a> {
    Read(Element<'a>),
    /// Stopped before the event at this offset.
    Paused(usize),
}

/// The children read so far of one open element, and the numbers of their names.
///
/// Every element of a snapshot (about a million) is numbered, so the common cases cost no
/// hashing: a repeat of the previous sibling (FLTR after FLTR, GTDT after GTDT) counts on
/// from it, and a name never seen among the siblings is known as new from a small bit
/// filter. Only a name the filter may have seen is looked for among the siblings; past
/// [`Level::SCAN_LIMIT`] siblings a map takes over, so that an element with a million
/// differently named children costs no million squared comparisons.
#[derive(Default)]
struct Level<'a> {
    children: Vec<Element<'a>>,
    /// One bit per name hash: clear means no child of a name with that hash yet.
    filter: [u64; 4],
    /// The highest index per name, kept only once `counting` is on.
    counts: HashMap<Cow<'a, str>, usize>,
    counting: bool,
}

impl<'a> Level<'a> {
    /// More siblings than an FLTR has distinct elements; beyond it, scanning would cost.
    const SCAN_LIMIT: usize = 128;

    /// Makes the level ready for a new open element (its children were taken at close).
    fn reset(&mut self) {
        self.filter = [0; 4];
        if self.counting {
            self.counting = false;
            // A map grown by one huge element is dropped, not cleared: clearing costs its
            // capacity, which every later element at this depth would pay again.
            if self.counts.capacity() > Self::SCAN_LIMIT {
                self.counts = HashMap::new();
            } else {
                self.counts.clear();
            }
        }
    }

    /// The 1-based index of a new child among the children of its name.
    fn number(&mut self, child: &Element<'a>) -> usize {
        let name = &child.name;
        if !self.counting && self.children.len() >= Self::SCAN_LIMIT {
            for sibling in &self.children {
                // Children come in order, so the last insert of a name is its highest index.
                self.counts.insert(sibling.name.clone(), sibling.index);
            }
            self.counting = true;
        }
        if self.counting {
            let seen = self.counts.entry(name.clone()).or_insert(0);
            *seen += 1;
            return *seen;
        }
        if let Some(last) = self.children.last()
            && last.name == *name
        {
            return last.index + 1;
        }
        let hash = name.bytes().fold(0x811c_9dc5_u32, |h, b| {
            (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
        });
        let (word, bit) = ((hash >> 6) as usize % 4, 1_u64 << (hash % 64));
        if self.filter[word] & bit == 0 {
            self.filter[word] |= bit;
            return 1;
        }
        self.children
            .iter()
            .rev()
            .find(|sibling| sibling.name == *name)
            .map_or(1, |sibling| sibling.index + 1)
    }
}

struct TreeBuilder<'a, F> {
    on_close: F,
    input: &'a str,
    body: &'a str,
    shift: usize,
    /// The open elements, root first.
    stack: Vec<Element<'a>>,
    /// `levels[d]` holds the children of `stack[d]`; entries past the stack are spare, kept
    /// for their allocations.
    levels: Vec<Level<'a>>,
    root: Option<Element<'a>>,
}

impl<'a, F: FnMut(&[Element<'a>], &mut Element<'a>)> TreeBuilder<'a, F> {
    fn new(document: &Document<'a>, on_close: F) -> Self {
        TreeBuilder {
            on_close,
            input: document.input,
            body: document.body,
            shift: document.input.len() - document.body.len(),
            stack: Vec::new(),
            levels: Vec::new(),
            root: None,
        }
    }

    fn at(&self, offset: u64) -> Position {
        Position::locate(self.input, offset as usize + self.shift)
    }

    /// Reads the body from `base` (where an event starts) as far as `until` says. A run
    /// from past the start uses a reader that does not know the elements opened before
    /// it: their end tags are checked here, as quick-xml checks the others.
    fn run(&mut self, base: usize, until: Until) -> Result<Ran<'a>, ProtocolError> {
        let body = self.body;
        let mut reader = Reader::from_str(&body[base..]);
        configure(&mut reader);
        reader.config_mut().allow_unmatched_ends = base > 0;
        let mut until = until;
        loop {
            let before = base as u64 + reader.buffer_position();
            if let Until::Offset(offset) = until
                && before >= offset as u64
            {
                if before == offset as u64 {
                    return Ok(Ran::Paused(offset));
                }
                until = Until::Eof;
            }
            let event = match reader.read_event() {
                Ok(event) => event,
                Err(e) => return Err(self.xml_error(base as u64 + reader.error_position(), e)),
            };
            match event {
                Event::Comment(comment) => {
                    // Not data, but not XML either: the same rule as text.
                    if let Some(c) = forbidden_char(&comment) {
                        return Err(ProtocolError::ForbiddenCharacter {
                            path: self.path(),
                            code: c.into(),
                        });
                    }
                }
                Event::Decl(_) | Event::PI(_) => {}
                Event::DocType(_) => {
                    return Err(ProtocolError::Doctype {
                        at: self.at(before),
                    });
                }
                Event::Start(start) => {
                    let element = self.element(body, &start, before)?;
                    self.open(element, before)?;
                }
                Event::Empty(start) => {
                    let element = self.element(body, &start, before)?;
                    self.open(element, before)?;
                    self.close(before)?;
                }
                Event::End(_) if matches!(until, Until::Depth(d) if d == self.stack.len()) => {
                    return Ok(Ran::Paused(before as usize));
                }
                Event::End(end) => {
                    if base > 0 {
                        self.check_end(&end, before)?;
                    }
                    self.close(before)?;
                }
                // Most text events are the layout between elements, dropped unread; only
                // text that may be kept is worth normalising.
                Event::Text(text) if !self.keeps_text() && trim_xml(&text).is_empty() => {}
                Event::Text(text) => self.text(text.xml10_content(), before)?,
                Event::CData(data) => self.text(data.xml10_content(), before)?,
                Event::GeneralRef(reference) => {
                    let resolved = match reference.resolve_char_ref() {
                        Ok(Some(c)) => Cow::Owned(c.to_string()),
                        Ok(None) => match resolve_predefined_entity(&reference) {
                            Some(s) => Cow::Borrowed(s),
                            None => {
                                return Err(ProtocolError::UnknownEntity {
                                    at: self.at(before),
                                    name: format!("{};", &*reference),
                                });
                            }
                        },
                        Err(e) => {
                            let at = base as u64 + reader.error_position();
                            return Err(self.xml_error(at, e));
                        }
                    };
                    self.text(resolved, before)?;
                }
                Event::Eof => break,
            }
        }
        match (self.stack.last(), self.root.take()) {
            (None, Some(root)) => Ok(Ran::Read(root)),
            (Some(open), _) => Err(ProtocolError::NotWellFormed {
                at: Position::locate(self.input, self.input.len()),
                reason: format!("element <{}> is not closed", open.name),
            }),
            (None, None) => Err(ProtocolError::NotWellFormed {
                at: Position::locate(self.input, self.input.len()),
                reason: "the document has no root element".into(),
            }),
        }
    }

    /// The check quick-xml makes of an end tag, for one whose start it did not read:
    /// same error, same position (the `<`).
    fn check_end(&self, end: &BytesEnd<'_>, offset: u64) -> Result<(), ProtocolError> {
        let name = end.name();
        let found: &str = name.as_ref();
        let error = match self.stack.last() {
            Some(open) if open.name == found => return Ok(()),
            Some(open) => IllFormedError::MismatchedEndTag {
                expected: open.name.to_string(),
                found: found.to_owned(),
            },
            None => IllFormedError::UnmatchedEndTag(found.to_owned()),
        };
        Err(self.xml_error(offset, quick_xml::Error::IllFormed(error)))
    }

    fn xml_error(&self, offset: u64, e: quick_xml::Error) -> ProtocolError {
        let at = self.at(offset);
        match e {
            quick_xml::Error::Escape(quick_xml::escape::EscapeError::UnrecognizedEntity(
                _,
                name,
            )) => ProtocolError::UnknownEntity {
                at,
                name: format!("{name};"),
            },
            other => ProtocolError::NotWellFormed {
                at,
                reason: other.to_string(),
            },
        }
    }

    /// The path of the innermost open element; only built for an error.
    fn path(&self) -> String {
        let mut path = String::new();
        for (depth, open) in self.stack.iter().enumerate() {
            if depth > 0 {
                path.push('/');
            }
            path.push_str(&Segment(open).to_string());
        }
        path
    }

    /// Reads a start tag into an element that borrows its name and values from `body`.
    fn element(
        &self,
        body: &'a str,
        start: &BytesStart<'_>,
        offset: u64,
    ) -> Result<Element<'a>, ProtocolError> {
        // The event borrows from `body` but with a shorter lifetime; the same bytes taken
        // from `body` itself (the tag's content starts just after its `<`) can outlive it.
        let from = offset as usize + 1;
        let content = body.get(from..from + start.len());
        let name_len = start.name().as_ref().len();
        match content {
            Some(content) if content.as_ptr() == start.as_ptr() => {
                self.parse_tag(content, name_len, offset)
            }
            // Not seen with a reader over a slice; correct, if slower, should that change.
            _ => Ok(self.parse_tag(start, name_len, offset)?.into_owned()),
        }
    }

    fn parse_tag<'c>(
        &self,
        content: &'c str,
        name_len: usize,
        offset: u64,
    ) -> Result<Element<'c>, ProtocolError> {
        let mut element = Element::new(Cow::Borrowed(&content[..name_len]));
        for attribute in Attributes::new(content, name_len) {
            let attribute = attribute.map_err(|e| ProtocolError::NotWellFormed {
                at: self.at(offset),
                reason: e.to_string(),
            })?;
            let value = attribute
                .normalized_value_with(XmlVersion::Implicit1_0, 1, resolve_predefined_entity)
                .map_err(|e| match e {
                    quick_xml::Error::Escape(
                        quick_xml::escape::EscapeError::UnrecognizedEntity(_, name),
                    ) => ProtocolError::UnknownEntity {
                        at: self.at(offset),
                        name: format!("{name};"),
                    },
                    other => ProtocolError::NotWellFormed {
                        at: self.at(offset),
                        reason: other.to_string(),
                    },
                })?;
            if let Some(c) = forbidden_char(&value) {
                let parent = self.path();
                let at = if parent.is_empty() {
                    String::new()
                } else {
                    format!("{parent}/")
                };
                return Err(ProtocolError::ForbiddenCharacter {
                    path: format!("{at}{}/@{}", element.name, attribute.key.0),
                    code: c.into(),
                });
            }
            element
                .attributes
                .push((Cow::Borrowed(attribute.key.0), value));
        }
        Ok(element)
    }

    fn open(&mut self, mut element: Element<'a>, offset: u64) -> Result<(), ProtocolError> {
        let depth = self.stack.len();
        match self.stack.last() {
            None if self.root.is_some() => {
                return Err(ProtocolError::NotWellFormed {
                    at: self.at(offset),
                    reason: format!("element <{}> after the root element", element.name),
                });
            }
            None => {}
            Some(parent) => {
                let stray = trim_xml(&parent.text);
                if !stray.is_empty() {
                    return Err(ProtocolError::StrayText {
                        path: self.path(),
                        text: stray.to_owned(),
                    });
                }
                element.index = self.levels[depth - 1].number(&element);
            }
        }
        if depth >= MAX_DEPTH {
            let path = format!("{}/{}", self.path(), Segment(&element));
            return Err(ProtocolError::TooDeep {
                path,
                limit: MAX_DEPTH,
            });
        }
        if self.levels.len() <= depth {
            self.levels.push(Level::default());
        }
        self.levels[depth].reset();
        self.stack.push(element);
        Ok(())
    }

    fn close(&mut self, offset: u64) -> Result<(), ProtocolError> {
        let Some(mut element) = self.stack.pop() else {
            // quick-xml reports unmatched end tags itself; this is a second line of defence.
            return Err(ProtocolError::NotWellFormed {
                at: self.at(offset),
                reason: "end tag without a start tag".into(),
            });
        };
        let depth = self.stack.len();
        let children = &mut self.levels[depth].children;
        if !children.is_empty() {
            // One allocation of the exact size; the level's buffer stays for the next one.
            element.children = Vec::with_capacity(children.len());
            element.children.append(children);
        }
        (self.on_close)(&self.stack, &mut element);
        match depth.checked_sub(1) {
            Some(parent) => self.levels[parent].children.push(element),
            None => self.root = Some(element),
        }
        Ok(())
    }

    /// Whether text read now would become the open element's own text: it has no child yet.
    fn keeps_text(&self) -> bool {
        self.stack
            .len()
            .checked_sub(1)
            .is_some_and(|d| self.levels[d].children.is_empty())
    }

    fn text(&mut self, text: Cow<'a, str>, offset: u64) -> Result<(), ProtocolError> {
        if let Some(c) = forbidden_char(&text) {
            return Err(ProtocolError::ForbiddenCharacter {
                path: self.path(),
                code: c.into(),
            });
        }
        let depth = self.stack.len();
        match self.stack.last_mut() {
            None => {
                if trim_xml(&text).is_empty() {
                    Ok(())
                } else {
                    Err(ProtocolError::NotWellFormed {
                        at: self.at(offset),
                        reason: "text outside the root element".into(),
                    })
                }
            }
            Some(_) if !self.levels[depth - 1].children.is_empty() => {
                let stray = trim_xml(&text);
                if stray.is_empty() {
                    Ok(())
                } else {
                    Err(ProtocolError::StrayText {
                        path: self.path(),
                        text: stray.to_owned(),
                    })
                }
            }
            // Most elements get one piece of text, kept borrowed; a second piece (after an
            // entity reference, around CDATA) turns it into an owned string.
            Some(open) if open.text.is_empty() => {
                open.text = text;
                Ok(())
            }
            Some(open) => {
                open.text.to_mut().push_str(&text);
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Element<'_>, ProtocolError> {
        read_document(text.as_bytes())
    }

    #[test]
    fn entities_are_resolved_in_place() {
        let root = read("<MSG><R>a &amp; b &#x4E2D;</R></MSG>").unwrap();
        assert_eq!(root.children[0].trimmed_text(), "a & b 中");
    }

    #[test]
    fn repeated_children_are_numbered() {
        let root = read("<MSG><FLTR/><FLTR/><X/><X/></MSG>").unwrap();
        let segments: Vec<_> = root.children.iter().map(Element::segment).collect();
        assert_eq!(segments, ["FLTR[1]", "FLTR[2]", "X", "X[2]"]);
    }

    #[test]
    fn numbering_holds_in_long_and_interleaved_runs() {
        // Enough siblings and names to pass through every way `Level` numbers: runs,
        // filter misses, filter hits, and the map past the scan limit.
        let names: Vec<String> = (0..600_usize)
            .map(|i| {
                format!(
                    "N{}",
                    if i % 5 == 0 {
                        i / 5 % 7
                    } else {
                        i * 7919 % 211
                    }
                )
            })
            .collect();
        let body: String = names.iter().map(|n| format!("<{n}/>")).collect();
        let text = format!("<MSG>{body}</MSG>");
        let root = read(&text).unwrap();
        let mut seen = HashMap::new();
        for (child, name) in root.children.iter().zip(&names) {
            let count = seen.entry(name).or_insert(0);
            *count += 1;
            assert_eq!(child.index, *count, "{name}");
        }
    }

    #[test]
    fn attributes_with_spaces_around_equals_are_read() {
        let root = read("<MSG><ROUT RTNO = \"1\" ></ROUT></MSG>").unwrap();
        assert_eq!(root.children[0].attribute("RTNO"), Some("1"));
    }

    #[test]
    fn a_second_root_is_rejected() {
        let err = read("<MSG></MSG></MSG>").unwrap_err();
        assert!(matches!(err, ProtocolError::NotWellFormed { .. }), "{err}");
    }

    #[test]
    fn deep_nesting_is_rejected() {
        let text = "<a>".repeat(MAX_DEPTH + 1);
        let err = read(&text).unwrap_err();
        assert!(matches!(err, ProtocolError::TooDeep { .. }), "{err}");
    }

    /// The tree as text: every element with its index, attributes and text.
    fn render(element: &Element, out: &mut String) {
        out.push_str(&format!("<{}#{}", element.name, element.index));
        for (name, value) in &element.attributes {
            out.push_str(&format!(" {name}={value:?}"));
        }
        out.push_str(&format!(" {:?}>", element.text));
        for child in &element.children {
            render(child, out);
        }
        out.push_str("</>");
    }

    fn whole(text: &str) -> Result<String, String> {
        let root = read(text).map_err(|e| e.to_string())?;
        let mut out = String::new();
        render(&root, &mut out);
        Ok(out)
    }

    /// Read in two halves, the second on this thread first; also whether it was used.
    fn halves(text: &str) -> (Result<String, String>, bool) {
        let document = Document::decode(text.as_bytes()).unwrap();
        let Some(split) = document.split(&["MSG", "SCHD"], "FLTR") else {
            return (whole(text), false);
        };
        let second = document.read_second_half(&split, |_, _| {});
        match document.read_halves(&split, |_, _| {}, || second) {
            Ok((root, used)) => {
                let mut out = String::new();
                render(&root, &mut out);
                (Ok(out), used)
            }
            Err(e) => (Err(e.to_string()), false),
        }
    }

    fn schedule(records: usize, tail: &str) -> String {
        let fltr = "<FLTR a=\"1\"><FLID>7</FLID><GTDT><GATE>A1</GATE></GTDT></FLTR>\n";
        format!(
            "<?xml version=\"1.0\"?>\n<MSG><META><TYPE>SCHD</TYPE></META><SCHD><RECS>{records}</RECS>\n{}{tail}</MSG>",
            fltr.repeat(records)
        )
    }

    #[test]
    fn a_document_read_in_halves_is_the_document_read_whole() {
        let text = schedule(9, "<X/></SCHD><Y>t</Y>");
        let (split, used) = halves(&text);
        assert!(used, "the second half was read apart");
        assert_eq!(split, whole(&text));
        assert!(split.is_ok());
    }

    #[test]
    fn a_second_half_that_is_no_run_of_records_is_read_by_the_first_reader() {
        for (case, text) in [
            ("end names differ", schedule(9, "</SCHX>")),
            ("record open at the end", schedule(9, "<FLTR></SCHD>")),
            ("end of an unopened element", schedule(9, "</SCHD></Z>")),
            ("stray text", schedule(9, "text</SCHD>")),
            ("text at the end", schedule(9, "</SCHD>text")),
            ("no end", schedule(9, "")),
            ("a second root", schedule(9, "</SCHD></MSG><MSG>")),
            ("a bad entity", schedule(9, "<X>&nope;</X></SCHD>")),
            (
                "split inside a comment",
                format!("<MSG><SCHD><!--{}--></SCHD></MSG>", "<FLTR/>".repeat(9)),
            ),
            (
                "split deeper than the schedule",
                format!("<MSG><SCHD><A>{}</A></SCHD></MSG>", "<FLTR/>".repeat(9)),
            ),
            (
                "split in a second schedule",
                format!("<MSG><SCHD/><SCHD>{}</SCHD></MSG>", "<FLTR/>".repeat(9)),
            ),
            (
                "split outside the schedule",
                format!("<MSG><SCHD/>{}</MSG>", "<FLTR/>".repeat(9)),
            ),
        ] {
            let (split, _) = halves(&text);
            assert_eq!(split, whole(&text), "{case}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// The error too is the one a reader of the whole reports: quick-xml's check of
        /// end tags is made here for the elements opened before a reader resumed.
        #[test]
        fn a_mangled_document_reads_in_halves_as_whole(
            at in 0usize..400,
            cut in 0usize..24,
            insert in "[<>/&;=\"' a-zA-Z0-9!-]{0,10}",
        ) {
            let mut bytes = schedule(6, "</SCHD>").into_bytes();
            let at = at.min(bytes.len());
            let end = (at + cut).min(bytes.len());
            bytes.splice(at..end, insert.bytes());
            if let Ok(text) = String::from_utf8(bytes) {
                proptest::prop_assert_eq!(halves(&text).0, whole(&text));
            }
        }
    }

    #[test]
    fn characters_xml_does_not_allow_are_refused_with_their_path() {
        let cases = [
            (
                "<MSG><A><B>x\0y</B></A></MSG>",
                "character U+0000 is not allowed in XML 1.0, in MSG/A/B",
            ),
            (
                "<MSG><A>\u{1b}</A></MSG>",
                "character U+001B is not allowed in XML 1.0, in MSG/A",
            ),
            (
                "<MSG><A><![CDATA[\u{7}]]></A></MSG>",
                "character U+0007 is not allowed in XML 1.0, in MSG/A",
            ),
            (
                "<MSG><A K=\"a\u{1}\"/></MSG>",
                "character U+0001 is not allowed in XML 1.0, in MSG/A/@K",
            ),
            (
                "<MSG><!-- \u{0} --></MSG>",
                "character U+0000 is not allowed in XML 1.0, in MSG",
            ),
            (
                "<MSG><A>\u{FFFE}</A></MSG>",
                "character U+FFFE is not allowed in XML 1.0, in MSG/A",
            ),
        ];
        for (text, expected) in cases {
            let err = read(text).expect_err(text);
            assert_eq!(err.to_string(), expected, "{text:?}");
        }
        // quick-xml refuses such character references itself.
        for text in ["<MSG><A>&#0;</A></MSG>", "<MSG><A>&#x1F;</A></MSG>"] {
            let err = read(text).expect_err(text).to_string();
            assert!(err.contains("character"), "{text}: {err}");
        }
        // Tab, LF, CR, DEL and the C1 controls are XML 1.0 characters.
        let kept = read("<MSG><A>a\tb\r\nc\u{7f}\u{85}</A></MSG>").expect("allowed characters");
        assert_eq!(kept.children[0].text, "a\tb\nc\u{7f}\u{85}");
    }

    #[test]
    fn invalid_utf8_is_located() {
        let err = read_document(b"<MSG>\n\xff</MSG>").unwrap_err();
        assert_eq!(
            err.to_string(),
            "not well-formed XML at line 2, column 1: the message is not UTF-8"
        );
    }
}
