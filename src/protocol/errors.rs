//! Why a message was rejected, with the element path an operator can find in the XML.
//!
//! Every variant is input the sender got wrong (kind [`FailureKind::BadInput`]) except
//! [`ProtocolError::Io`], which is about our side of the read. The texts are one line:
//! values and stray text are escaped and cut short, so a log line stays a log line.

use std::fmt;

use crate::FailureKind;

/// A place in the raw document, for errors found before there is an element path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
    /// 0-based byte offset, for tools that seek in the raw text.
    pub offset: usize,
}

impl Position {
    /// Locates `offset` in `input`; an offset past the end points just after the last byte.
    pub(crate) fn locate(input: &str, offset: usize) -> Position {
        let mut end = offset.min(input.len());
        while !input.is_char_boundary(end) {
            end -= 1;
        }
        let before = &input[..end];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before[line_start..].chars().count() + 1;
        Position {
            line,
            column,
            offset,
        }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// Why a message could not be turned into a [`Message`](super::Message).
///
/// Paths name elements from the root, with a 1-based `[n]` on repeating elements
/// (`MSG/SCHD/FLTR[2]/SODT`) and `@` before an attribute (`MSG/FLOP[1]/DELY[1]/@DURA`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProtocolError {
    /// The message is bigger than [`ParseOptions::max_bytes`](super::ParseOptions::max_bytes).
    /// Checked before any parsing, so a huge message costs no memory beyond the limit.
    /// Raise the limit only if the site really sends bigger snapshots.
    #[error("message is too large: {size} bytes read, the limit is {limit} bytes")]
    TooLarge {
        /// Bytes seen; from a reader this is the limit plus one, as reading stops there.
        size: usize,
        /// The configured limit.
        limit: usize,
    },
    /// The input could not be read. Not the sender's fault, so not [`FailureKind::BadInput`].
    #[error("could not read the message")]
    Io(#[source] std::io::Error),
    /// The document is not well-formed XML (or not UTF-8). Nothing in it is trusted.
    #[error("not well-formed XML at {at}: {}", Shown(reason, REASON_CHARS))]
    NotWellFormed {
        /// Where the reader gave up.
        at: Position,
        /// What the XML reader reported.
        reason: String,
    },
    /// The document carries a DOCTYPE. SIS never does, and a DTD is how entity-expansion
    /// attacks get in, so any DOCTYPE is refused without reading it.
    #[error("DOCTYPE at {at} is not allowed: SIS messages carry no DTD")]
    Doctype {
        /// Where the DOCTYPE starts.
        at: Position,
    },
    /// An entity reference other than the five predefined ones (`&lt;` …) or a character
    /// reference. Without a DTD there is nothing it could mean, and nothing is expanded.
    #[error("unknown entity reference `&{}` at {at}", Shown(name, VALUE_CHARS))]
    UnknownEntity {
        /// Where the reference is.
        at: Position,
        /// The entity name (as much of it as was readable).
        name: String,
    },
    /// A character that XML 1.0 does not allow (§2.2 `Char`): NUL and the other C0 controls
    /// but tab, LF and CR, and U+FFFE / U+FFFF, raw or as a character reference. No database
    /// can store it as text (PostgreSQL refuses NUL), so the message is refused where it is
    /// read rather than failing at every attempt to store it.
    #[error("character U+{code:04X} is not allowed in XML 1.0, in {path}")]
    ForbiddenCharacter {
        /// The element (or `…/@ATTR`) holding it.
        path: String,
        /// Its code point.
        code: u32,
    },
    /// Elements are nested deeper than any SIS message goes; refused so that a hostile
    /// document cannot build an unbounded tree.
    #[error("elements are nested deeper than {limit} levels at {path}")]
    TooDeep {
        /// The element that went too deep.
        path: String,
        /// The nesting limit.
        limit: usize,
    },
    /// The root element is not `<MSG>`: this is not an SIS message at all.
    #[error("root element is <{}>, expected <MSG>", Shown(found, VALUE_CHARS))]
    WrongRoot {
        /// The name of the root element found.
        found: String,
    },
    /// Non-whitespace text where only elements belong (mixed content), for example the
    /// stray `a` between two elements in the peer's sample `AIRC_DNLD_2`.
    #[error("stray text `{}` in {path}", Shown(text, VALUE_CHARS))]
    StrayText {
        /// The element holding the text.
        path: String,
        /// The text (trimmed).
        text: String,
    },
    /// A mandatory element is not there at all.
    #[error("mandatory element {path} is missing")]
    Missing {
        /// The element that should be there.
        path: String,
    },
    /// A mandatory element is there but empty (`<X/>` or `<X></X>`).
    #[error("mandatory element {path} is empty")]
    Empty {
        /// The empty element.
        path: String,
    },
    /// An element that may appear once appears again; which of the two values is meant
    /// cannot be known.
    #[error("element {path} appears more than once")]
    Duplicate {
        /// The second occurrence.
        path: String,
    },
    /// A value that does not fit what the protocol defines for the element or attribute.
    #[error(
        "bad value `{}` in {path}: expected {expected}",
        Shown(value, VALUE_CHARS)
    )]
    BadValue {
        /// The element or attribute.
        path: String,
        /// The value as sent (trimmed).
        value: String,
        /// What the protocol allows there.
        expected: &'static str,
    },
    /// A child element inside an element that holds only text (`<FLID><X/></FLID>`).
    #[error(
        "element {path} holds a child element <{}> where only text is allowed",
        Shown(child, VALUE_CHARS)
    )]
    UnexpectedChild {
        /// The text-only element.
        path: String,
        /// The child's name.
        child: String,
    },
}

impl ProtocolError {
    /// How the pump must treat the message: rejected input is dead at once, never retried.
    pub fn kind(&self) -> FailureKind {
        match self {
            ProtocolError::Io(_) => FailureKind::Other,
            _ => FailureKind::BadInput,
        }
    }
}

/// Shows sender-controlled text on one line: escaped, and cut after so many characters.
struct Shown<'a>(&'a str, usize);

/// Values are short in SIS; more than this is noise in a log line.
const VALUE_CHARS: usize = 60;
/// The XML reader's reasons quote tag names; long enough to keep them whole.
const REASON_CHARS: usize = 200;

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut chars = self.0.chars();
        for c in chars.by_ref().take(self.1) {
            write!(f, "{}", c.escape_debug())?;
        }
        if chars.next().is_some() {
            f.write_str("…")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_counts_lines_and_characters() {
        let text = "ab\nc中d";
        assert_eq!(
            Position::locate(text, 7),
            Position {
                line: 2,
                column: 3,
                offset: 7
            }
        );
        assert_eq!(Position::locate(text, 0).to_string(), "line 1, column 1");
    }

    #[test]
    fn shown_text_stays_on_one_line() {
        let e = ProtocolError::StrayText {
            path: "MSG".into(),
            text: "a\nb".into(),
        };
        assert_eq!(e.to_string(), "stray text `a\\nb` in MSG");
        assert_eq!(e.kind(), FailureKind::BadInput);
    }
}
