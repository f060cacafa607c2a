//! The children read so far of each open element, numbered by name as they come.

use std::borrow::Cow;
use std::collections::HashMap;

use super::Element;

/// The children read so far of one open element, and the numbers of their names.
///
/// Every element of a snapshot (about a million) is numbered, so the common cases cost no
/// hashing: a repeat of the previous sibling (FLTR after FLTR, GTDT after GTDT) counts on
/// from it, and a name never seen among the siblings is known as new from a small bit
/// filter. Only a name the filter may have seen is looked for among the siblings; past
/// [`Level::SCAN_LIMIT`] siblings a map takes over, so that an element with a million
/// differently named children costs no million squared comparisons.
#[derive(Default)]
pub(crate) struct Level<'a> {
    pub children: Vec<Element<'a>>,
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
    pub fn reset(&mut self) {
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
    pub fn number(&mut self, child: &Element<'a>) -> usize {
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
