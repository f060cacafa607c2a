//! The action forms an operator's pages carry (docs/api.md, "Actions"):
//! plain HTML forms that `POST` under `/operator` with the account's form
//! token, so they work without script. A page rendered for the read role
//! gets no [`OperatorView`] and so no form.

use std::fmt::Write as _;

use super::html::escape;

/// Who is looking at an operator's page, and the token their forms carry.
pub(super) struct OperatorView {
    /// The account (from the Basic credentials).
    pub account: String,
    /// The account's form token.
    pub token: String,
}

/// One action's form: hidden `fields`, the token, and a button saying
/// `label`; `id` names the button for people's tools and the tests.
pub(super) fn action_form(
    out: &mut String,
    view: &OperatorView,
    action: &str,
    fields: &[(&str, &str)],
    label: &str,
    id: &str,
) {
    let _ = write!(
        out,
        "<form method=\"post\" action=\"/operator/{}\"><input type=\"hidden\" name=\"token\" \
         value=\"{}\">",
        escape(action),
        escape(&view.token)
    );
    for (name, value) in fields {
        let _ = write!(
            out,
            "<input type=\"hidden\" name=\"{}\" value=\"{}\">",
            escape(name),
            escape(value)
        );
    }
    let _ = write!(
        out,
        "<button type=\"submit\" id=\"{}\">{}</button></form>",
        escape(id),
        escape(label)
    );
}

/// The form asking for an operation day to request from AODB.
pub(super) fn request_day_form(out: &mut String, view: &OperatorView) {
    let _ = write!(
        out,
        "<form id=\"request-day\" method=\"post\" action=\"/operator/request-day\">\
         <input type=\"hidden\" name=\"token\" value=\"{}\"><label>Operation day \
         <input name=\"day\" placeholder=\"YYYY-MM-DD\" size=\"10\" required></label> \
         <button type=\"submit\" id=\"request-day-button\">Request the day from AODB</button>\
         </form>",
        escape(&view.token)
    );
}
