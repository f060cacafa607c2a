//! What every HTML page shares: the head with its inline style, the search
//! box, the optional self-refresh, HTML error pages, and the decoding of a
//! form's query (`q=CA+1234`). No script, no external asset.

use std::fmt::Write as _;

use super::html::escape;
use super::reply::Reply;

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:0 auto;padding:0.5rem;\
max-width:60rem;line-height:1.4}h1{font-size:1.3rem}h2{font-size:1.1rem;margin-top:1.2rem}\
table{border-collapse:collapse;width:100%;font-size:0.9rem}td,th{border-bottom:1px solid #ccc;\
padding:0.25rem;text-align:left;vertical-align:top}.wrap{overflow-x:auto}\
.bad{color:#a00;font-weight:bold}.ok{color:#070}dl{display:grid;\
grid-template-columns:max-content 1fr;gap:0.2rem 1rem}dt{font-weight:bold}dd{margin:0}\
td.reason{word-break:break-word}form{display:inline-block;margin:0.2rem 0.5rem 0.2rem 0}\
pre{white-space:pre-wrap;word-break:break-word;font-size:0.8rem;background:#f6f6f6;\
padding:0.5rem}svg{max-width:100%;height:auto;background:#fafafa}.none{color:#666}\
#attention li{color:#a00;font-weight:bold}";

/// Opens a page: head, style, the refresh (`refresh_secs`, if any) and the
/// search box with `query` in it.
pub(super) fn open(out: &mut String, title: &str, refresh_secs: Option<u32>, query: &str) {
    let refresh = refresh_secs.map_or_else(String::new, |secs| {
        format!("<meta http-equiv=\"refresh\" content=\"{secs}\">")
    });
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">{refresh}\
         <title>{}</title><style>{STYLE}</style></head><body>\
         <form id=\"search\" action=\"/search\" method=\"get\"><label>Flight \
         <input name=\"q\" value=\"{}\" placeholder=\"FLID or CA1234\" size=\"14\"></label> \
         <label>day <input name=\"day\" placeholder=\"YYYY-MM-DD\" size=\"10\"></label> \
         <button type=\"submit\">Find</button></form>",
        escape(title),
        escape(query)
    );
}

/// Closes a page.
pub(super) fn close(out: &mut String) {
    out.push_str("</body></html>\n");
}

/// A whole HTML answer.
pub(super) fn html(status: u16, body: String) -> Reply {
    Reply::Full {
        status,
        content_type: "text/html; charset=utf-8",
        body: body.into_bytes(),
    }
}

/// An HTML error page saying `why` (escaped), with the search box.
pub(super) fn error(status: u16, why: &str) -> Reply {
    let mut out = String::with_capacity(1024);
    open(&mut out, "flightstate", None, "");
    let _ = write!(out, "<p id=\"error\" class=\"bad\">{}</p>", escape(why));
    close(&mut out);
    html(status, out)
}

/// A query's parameters, decoded as a form sends them (`+` is a space,
/// `%XX` a byte); `None` when a value is not UTF-8 once decoded.
pub(super) fn form_parameters(query: &str) -> Option<Vec<(String, String)>> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (key, value) = p.split_once('=').unwrap_or((p, ""));
            Some((decode(key)?, decode(value)?))
        })
        .collect()
}

fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = bytes.get(i + 1..i + 3)?;
                let hex = std::str::from_utf8(hex).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_values_are_decoded() {
        assert_eq!(
            form_parameters("q=ca+12%2034&day="),
            Some(vec![
                ("q".to_owned(), "ca 12 34".to_owned()),
                ("day".to_owned(), String::new())
            ])
        );
        assert_eq!(
            form_parameters("q=%E5%8C%97"),
            Some(vec![("q".to_owned(), "北".to_owned())])
        );
        assert_eq!(form_parameters("q=%ff"), None);
        assert_eq!(form_parameters("q=%4"), None);
    }
}
