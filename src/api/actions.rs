//! The operator's side of the page (docs/api.md, "Actions"), answered only
//! when `api.actions` is on: `GET /operator` (the status page with its
//! action buttons), `GET /operator/dead` (the dead letters with theirs),
//! and the actions, each a `POST` of a plain form:
//!
//! - `/operator/requeue` (`id`): one dead letter;
//! - `/operator/requeue-matching` (`kind`, `error`, `day`): all that match,
//!   after a confirmation page naming how many;
//! - `/operator/release`, `/operator/reject` (`id`): a held snapshot,
//!   after a confirmation page;
//! - `/operator/request-day` (`day`).
//!
//! Each runs [`crate::operator`], the command line's own code (the same
//! locks, checks and action record), as the account the Basic credentials
//! name. A request without them is challenged; one whose form token is not
//! the account's, or that the browser says comes from another site, is
//! refused and changes nothing.

use std::fmt::Write as _;

use chrono::NaiveDate;

use super::credential::same_origin;
use super::dashboard::{self, PageOptions};
use super::dead_page::{self, Filter};
use super::forms::OperatorView;
use super::history::History;
use super::html::escape;
use super::reply::Reply;
use super::{ActionSettings, Api, chrome, page};
use crate::operator::{self, Actor, Decision, Via};
use crate::store::Store;

/// The Basic challenge: the realm names what the credentials are for.
const CHALLENGE: &str = "Basic realm=\"flightstate operator\", charset=\"UTF-8\"";

/// The request's headers the answer depends on.
pub(super) struct Head {
    /// `Authorization`.
    pub authorization: Option<String>,
    /// `Host`.
    pub host: Option<String>,
    /// `Origin`.
    pub origin: Option<String>,
    /// `Sec-Fetch-Site`.
    pub fetch_site: Option<String>,
}

/// Whether `url` is the operator's side.
pub(super) fn is_operator_path(url: &str) -> bool {
    let path = url.split_once('?').map_or(url, |(path, _)| path);
    path == "/operator" || path.starts_with("/operator/")
}

/// The answer to a request under `/operator`; `form` is the body of a
/// `POST` (`Some(None)` when it was too long or not text), `None` for a
/// `GET`.
pub(super) fn answer<S: Store + Clone>(
    api: &Api<S>,
    history: &History,
    head: &Head,
    url: &str,
    form: Option<Option<String>>,
) -> Reply {
    let Some(settings) = &api.settings.actions else {
        return chrome::error(404, "actions are off (api.actions)");
    };
    let Some(account) = settings.operators.account(head.authorization.as_deref()) else {
        return Reply::Challenge {
            challenge: CHALLENGE,
            why: "an operator's credentials are needed (api.operators)",
        };
    };
    let view = OperatorView {
        account: account.to_owned(),
        token: settings.operators.form_token(account),
    };
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    match form {
        None => match path {
            "/operator" | "/operator/" => status_page(api, history, query, &view),
            "/operator/dead" => dead_page::get(&api.store, query, Some(&view)),
            _ => chrome::error(404, &format!("no page {path}")),
        },
        Some(None) => chrome::error(413, "the form is too long or not text"),
        Some(Some(body)) => {
            if !same_origin(
                head.host.as_deref(),
                head.origin.as_deref(),
                head.fetch_site.as_deref(),
            ) {
                tracing::warn!(
                    account,
                    path,
                    origin = head.origin.as_deref().unwrap_or("-"),
                    "an action from another site refused"
                );
                return chrome::error(403, "refused: the request comes from another site");
            }
            post(api, settings, &view, path, &body)
        }
    }
}

fn status_page<S: Store + Clone>(
    api: &Api<S>,
    history: &History,
    query: &str,
    view: &OperatorView,
) -> Reply {
    let options = match PageOptions::parse(query) {
        Ok(options) => options,
        Err(why) => return chrome::error(400, &why),
    };
    let status = api.status();
    let charts = dashboard::render(&api.store, history, status.taken_at, options.hours);
    chrome::html(200, page::render(&status, &options, &charts, Some(view)))
}

/// A form's fields: all but `token` and `confirm`, which are checked here.
struct Form {
    fields: Vec<(String, String)>,
    confirmed: bool,
}

impl Form {
    fn read(body: &str, view: &OperatorView, settings: &ActionSettings) -> Result<Form, Reply> {
        let fields = chrome::form_parameters(body)
            .ok_or_else(|| chrome::error(400, "the form is not UTF-8 once decoded"))?;
        let token = fields.iter().find(|(k, _)| k == "token").map(|(_, v)| v);
        if !token.is_some_and(|t| settings.operators.token_matches(&view.account, t)) {
            return Err(chrome::error(
                403,
                "refused: the form's token is not this account's (reload the page and try again)",
            ));
        }
        let confirmed = fields.iter().any(|(k, v)| k == "confirm" && v == "yes");
        Ok(Form { fields, confirmed })
    }

    fn value(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.trim())
    }

    fn id(&self) -> Result<i64, Reply> {
        match self.value("id").map(str::parse::<i64>) {
            Some(Ok(id)) if id > 0 => Ok(id),
            _ => Err(chrome::error(400, "the form names no message id")),
        }
    }
}

fn post<S: Store + Clone>(
    api: &Api<S>,
    settings: &ActionSettings,
    view: &OperatorView,
    path: &str,
    body: &str,
) -> Reply {
    let form = match Form::read(body, view, settings) {
        Ok(form) => form,
        Err(reply) => return reply,
    };
    let actor = match Actor::new(&view.account, Via::Page) {
        Ok(actor) => actor,
        Err(e) => return chrome::error(403, &e.to_string()),
    };
    let outcome = match path {
        "/operator/requeue" => requeue(api, &form, &actor),
        "/operator/requeue-matching" => requeue_matching(api, &form, view, &actor),
        "/operator/release" => decide(api, &form, view, &actor, Decision::Release),
        "/operator/reject" => decide(api, &form, view, &actor, Decision::Reject),
        "/operator/request-day" => request_day(api, settings, &form, &actor),
        _ => Err(chrome::error(404, &format!("no action {path}"))),
    };
    outcome.unwrap_or_else(|reply| reply)
}

fn mailbox<S>(api: &Api<S>) -> Result<&crate::mailbox::Mailbox, Reply> {
    api.mailbox.as_deref().ok_or_else(|| {
        chrome::error(
            503,
            "no mailbox is configured (mailbox.url): a requeue sets the message's row pending",
        )
    })
}

fn requeue<S: Store + Clone>(api: &Api<S>, form: &Form, actor: &Actor) -> Result<Reply, Reply> {
    let id = form.id()?;
    let results = operator::requeue(&api.store, mailbox(api)?, &[id], actor)
        .map_err(|e| refused("not requeued", &e))?;
    let lines: Vec<(bool, String)> = results.iter().map(|r| (r.ok(), r.to_string())).collect();
    Ok(done("Requeue", &lines))
}

fn requeue_matching<S: Store + Clone>(
    api: &Api<S>,
    form: &Form,
    view: &OperatorView,
    actor: &Actor,
) -> Result<Reply, Reply> {
    let filter = Filter::read(&form.fields, &["token", "confirm"])
        .map_err(|why| chrome::error(400, &why))?;
    if !form.confirmed {
        let letters = dead_page::matching(&api.store, &filter, operator::MAX_LETTERS)
            .map_err(|e| chrome::error(503, &format!("state database unavailable: {e:#}")))?;
        let ids: Vec<String> = letters.iter().map(|r| r.message_id.to_string()).collect();
        let fields = filter.fields();
        let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
        return Ok(confirm(
            view,
            "requeue-matching",
            &fields,
            &format!(
                "Requeue {} dead letter(s) ({}): {}?",
                ids.len(),
                filter.describe(),
                if ids.is_empty() {
                    "none".to_owned()
                } else {
                    ids.join(", ")
                }
            ),
            "The pump applies each again through the normal path.",
        ));
    }
    let results = operator::requeue_matching(&api.store, mailbox(api)?, filter.as_store(), actor)
        .map_err(|e| refused("not requeued", &e))?;
    let mut lines: Vec<(bool, String)> = results.iter().map(|r| (r.ok(), r.to_string())).collect();
    if lines.is_empty() {
        lines.push((true, "no dead letter matched".to_owned()));
    }
    Ok(done("Requeue all that match", &lines))
}

fn decide<S: Store + Clone>(
    api: &Api<S>,
    form: &Form,
    view: &OperatorView,
    actor: &Actor,
    decision: Decision,
) -> Result<Reply, Reply> {
    let id = form.id()?;
    let (action, question, effect) = match decision {
        Decision::Release => (
            "release",
            format!("Release held snapshot {id}?"),
            "The pump applies it as it is, deletions included, at its next look at the head.",
        ),
        Decision::Reject => (
            "reject",
            format!("Reject held snapshot {id}?"),
            "The pump records it DEAD and the queue moves on; the day keeps its flights.",
        ),
    };
    if !form.confirmed {
        let id = id.to_string();
        return Ok(confirm(view, action, &[("id", &id)], &question, effect));
    }
    let decided = operator::decide_held(&api.store, id, decision, actor)
        .map_err(|e| refused("not decided", &e))?;
    Ok(done(
        if action == "release" {
            "Release"
        } else {
            "Reject"
        },
        &[(decided.ok(), decided.to_string())],
    ))
}

fn request_day<S: Store + Clone>(
    api: &Api<S>,
    settings: &ActionSettings,
    form: &Form,
    actor: &Actor,
) -> Result<Reply, Reply> {
    let text = form.value("day").unwrap_or_default();
    let day = NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .map_err(|_| chrome::error(400, &format!("day {text:?} is not a date (YYYY-MM-DD)")))?;
    let line = match operator::request_day(
        &api.store,
        &settings.requests,
        &api.settings.station,
        day,
        actor,
    ) {
        Ok(registered) => (
            true,
            format!("{day}: request {} registered", registered.req_id),
        ),
        Err(e) => (false, format!("{day}: not requested: {e}")),
    };
    Ok(done("Request a day", &[line]))
}

/// An action the store or the mailbox failed: nothing was done (the
/// operator module's promise), and why, with its causes.
fn refused(what: &str, e: &operator::OperatorError) -> Reply {
    chrome::error(503, &format!("{what}: {}", crate::failure::Causes(e)))
}

/// The page asking to confirm: the same form again with `confirm=yes`.
fn confirm(
    view: &OperatorView,
    action: &str,
    fields: &[(&str, &str)],
    question: &str,
    effect: &str,
) -> Reply {
    let mut out = String::with_capacity(2048);
    chrome::open(&mut out, "flightstate: confirm", None, "");
    let _ = write!(
        out,
        "<h1>Confirm</h1><p id=\"question\">{}</p><p>{}</p>",
        escape(question),
        escape(effect)
    );
    let mut confirmed = fields.to_vec();
    confirmed.push(("confirm", "yes"));
    super::forms::action_form(&mut out, view, action, &confirmed, "Yes, do it", "confirm");
    out.push_str("<p><a href=\"/operator/\" id=\"cancel\">No, back to the status</a></p>");
    chrome::close(&mut out);
    chrome::html(200, out)
}

/// The page saying what an action did, one line per message or day.
fn done(what: &str, lines: &[(bool, String)]) -> Reply {
    let mut out = String::with_capacity(2048);
    chrome::open(&mut out, &format!("flightstate: {what}"), None, "");
    let _ = write!(out, "<h1>{}</h1><ul id=\"action-result\">", escape(what));
    for (ok, line) in lines {
        let _ = write!(
            out,
            "<li class=\"{}\">{}</li>",
            if *ok { "ok" } else { "bad" },
            escape(line)
        );
    }
    out.push_str(
        "</ul><p><a href=\"/operator/\" id=\"back\">Back to the status</a> · \
         <a href=\"/operator/dead\">Dead letters</a></p>",
    );
    chrome::close(&mut out);
    chrome::html(200, out)
}
