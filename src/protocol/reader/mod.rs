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

mod element;
mod siblings;

use std::borrow::Cow;

use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::attributes::Attributes;
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

pub(crate) use self::element::{Element, Segment, trim_xml};
use self::siblings::Level;
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
        TreeBuilder::new(self, on_close).run()
    }

    /// What the reader reads: the document without its byte order mark.
    pub fn body(&self) -> &'a str {
        self.body
    }

    /// Like [`Document::read_with`], and where an event starts at byte `at` of the
    /// [`body`](Document::body) while the innermost open element has no text, asks
    /// `listener` for the rest of that element's children ([`Listener::tail`]); given
    /// them, takes them as read and closes the open elements without reading further.
    ///
    /// # Errors
    ///
    /// As [`Document::read_with`].
    pub fn read_handing_over(
        &self,
        at: usize,
        listener: impl Listener<'a>,
    ) -> Result<Element<'a>, ProtocolError> {
        let mut builder = TreeBuilder::new(self, listener);
        builder.hand_over = Some(at as u64);
        builder.run()
    }

    /// Reads the body from byte `from` on as the rest of the children of the elements
    /// named `open` (root first), open there, followed by their end tags and nothing but
    /// comments and layout: the children of the innermost, complete and numbered from 1.
    /// `None` where the rest does not read so (not well-formed, a declaration, other
    /// children of an outer element): the whole document read from its start says why.
    pub fn read_tail(
        &self,
        from: usize,
        open: &[&'static str],
        on_close: impl FnMut(&[Element<'a>], &mut Element<'a>),
    ) -> Option<Vec<Element<'a>>> {
        let mut builder = TreeBuilder::new(self, on_close);
        builder.body = self.body.get(from..)?;
        builder.shift += from;
        builder.tail = true;
        for name in open {
            builder.levels.push(Level::default());
            builder.stack.push(Element::new(Cow::Borrowed(name)));
        }
        let mut element = builder.run().ok()?;
        for _ in 1..open.len() {
            let [inner] = <[Element<'a>; 1]>::try_from(element.children).ok()?;
            element = inner;
        }
        Some(element.children)
    }
}

/// Who is told what the tree builder reads.
pub(crate) trait Listener<'a> {
    /// `element` has closed, complete with its children; `ancestors` are the open
    /// elements, root first (their children are not in them yet). It may take what it
    /// needs and empty the element.
    fn closed(&mut self, ancestors: &[Element<'a>], element: &mut Element<'a>);

    /// The rest of the children of the innermost of `open`, read by someone else, to be
    /// taken in place of reading on ([`Document::read_handing_over`]); `None` to read on.
    fn tail(&mut self, open: &[Element<'a>]) -> Option<Vec<Element<'a>>>;
}

/// A closure is told of each element as it closes, and reads every document to its end.
impl<'a, F: FnMut(&[Element<'a>], &mut Element<'a>)> Listener<'a> for F {
    fn closed(&mut self, ancestors: &[Element<'a>], element: &mut Element<'a>) {
        self(ancestors, element);
    }

    fn tail(&mut self, _open: &[Element<'a>]) -> Option<Vec<Element<'a>>> {
        None
    }
}

struct TreeBuilder<'a, L> {
    listener: L,
    input: &'a str,
    /// What is read: the body, or its tail from `shift` on.
    body: &'a str,
    shift: usize,
    /// Where to ask the listener for the rest ([`Document::read_handing_over`]).
    hand_over: Option<u64>,
    /// Whether the stack starts with elements opened before `body` ([`Document::read_tail`]).
    tail: bool,
    /// The open elements, root first.
    stack: Vec<Element<'a>>,
    /// `levels[d]` holds the children of `stack[d]`; entries past the stack are spare, kept
    /// for their allocations.
    levels: Vec<Level<'a>>,
    root: Option<Element<'a>>,
}

impl<'a, L: Listener<'a>> TreeBuilder<'a, L> {
    fn new(document: &Document<'a>, listener: L) -> Self {
        TreeBuilder {
            listener,
            input: document.input,
            body: document.body,
            shift: document.input.len() - document.body.len(),
            hand_over: None,
            tail: false,
            stack: Vec::new(),
            levels: Vec::new(),
            root: None,
        }
    }

    fn at(&self, offset: u64) -> Position {
        Position::locate(self.input, offset as usize + self.shift)
    }

    /// Reads the body into its root element.
    fn run(&mut self) -> Result<Element<'a>, ProtocolError> {
        let body = self.body;
        let mut reader = Reader::from_str(body);
        configure(&mut reader);
        if self.tail {
            // The ends of the elements opened before the tail; their names are checked here.
            reader.config_mut().allow_unmatched_ends = true;
        }
        loop {
            let before = reader.buffer_position();
            if self.hand_over == Some(before) {
                self.hand_over = None;
                if let Some(children) = self.handed_over() {
                    return self.take_tail(children, before);
                }
            }
            let event = match reader.read_event() {
                Ok(event) => event,
                Err(e) => return Err(self.xml_error(reader.error_position(), e)),
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
                Event::Decl(_) | Event::PI(_) | Event::DocType(_) if self.tail => {
                    return Err(self.not_a_tail(before, "a declaration"));
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
                // quick-xml checks the names of the elements it opened, not of those
                // opened before a tail.
                Event::End(end)
                    if self.tail
                        && self
                            .stack
                            .last()
                            .is_some_and(|open| *open.name != *end.name().as_ref()) =>
                {
                    return Err(self.not_a_tail(before, "an end tag of another element"));
                }
                Event::End(_) => self.close(before)?,
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
                        // Not an error of the reader's: the reference's own offset.
                        Err(e) => return Err(self.xml_error(before, e)),
                    };
                    self.text(resolved, before)?;
                }
                Event::Eof => break,
            }
        }
        self.finish()
    }

    /// The read root, or why there is none.
    fn finish(&mut self) -> Result<Element<'a>, ProtocolError> {
        match (self.stack.last(), self.root.take()) {
            (None, Some(root)) => Ok(root),
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

    /// The listener's rest of the innermost open element's children, asked only if that
    /// element has no text: taking children would skip the stray-text check of the first.
    fn handed_over(&mut self) -> Option<Vec<Element<'a>>> {
        let open = self.stack.last()?;
        if !trim_xml(&open.text).is_empty() {
            return None;
        }
        self.listener.tail(&self.stack)
    }

    /// Takes `children` as the rest of the innermost open element's, numbered on from
    /// its children so far, and closes every open element.
    fn take_tail(
        &mut self,
        children: Vec<Element<'a>>,
        offset: u64,
    ) -> Result<Element<'a>, ProtocolError> {
        let level = &mut self.levels[self.stack.len() - 1];
        for mut child in children {
            child.index = level.number(&child);
            level.children.push(child);
        }
        while !self.stack.is_empty() {
            self.close(offset)?;
        }
        self.finish()
    }

    /// Why a tail does not read as one; never reported, since the whole document is then
    /// read from its start.
    fn not_a_tail(&self, offset: u64, what: &str) -> ProtocolError {
        ProtocolError::NotWellFormed {
            at: self.at(offset),
            reason: format!("{what} in the tail"),
        }
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
        self.listener.closed(&self.stack, &mut element);
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
    use std::collections::HashMap;

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
    fn a_bad_character_reference_is_located_where_it_is() {
        let err = read("<MSG>\n<A>x&#0;</A></MSG>").unwrap_err().to_string();
        assert!(
            err.starts_with("not well-formed XML at line 2, column 5: "),
            "{err}"
        );
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
