//! The status page's charts, drawn on the server as inline SVG: no script,
//! no external asset, so they show in any browser a control room has.
//!
//! Two shapes: lines for levels sampled once a minute (`api::history`),
//! and bars for what `PROC_STATE` counts per minute. Each bar carries its
//! minute, kind and count as `data-` attributes and a `<title>` (a tooltip
//! in a browser), so a person can read a value and a test can check it.
//! Every name from data is escaped.

use std::fmt::Write as _;

use chrono::NaiveDateTime;

use super::html::escape;

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 150.0;
const LEFT: f64 = 48.0;
const RIGHT: f64 = 8.0;
const TOP: f64 = 8.0;
const BOTTOM: f64 = 22.0;

/// Colours of the series, in order (repeated past the last).
const COLOURS: [&str; 8] = [
    "#1f5fa8", "#c0392b", "#2e8b57", "#b8860b", "#6a3d9a", "#008b8b", "#8b4513", "#555555",
];

/// The time a chart spans (UTC).
#[derive(Clone, Copy, Debug)]
pub struct Window {
    /// Its left edge.
    pub start: NaiveDateTime,
    /// Its right edge (now).
    pub end: NaiveDateTime,
}

impl Window {
    fn x(&self, t: NaiveDateTime) -> f64 {
        let span = (self.end - self.start).num_seconds().max(1) as f64;
        let at = (t - self.start).num_seconds().clamp(0, span as i64) as f64;
        LEFT + at / span * (WIDTH - LEFT - RIGHT)
    }

    /// The width of one minute.
    fn minute(&self) -> f64 {
        let span = (self.end - self.start).num_seconds().max(60) as f64;
        (60.0 / span * (WIDTH - LEFT - RIGHT)).max(1.0)
    }
}

/// One series: a name and its points.
pub struct Series {
    /// What it shows (escaped when drawn).
    pub name: String,
    /// `(time, value)`, oldest first.
    pub points: Vec<(NaiveDateTime, f64)>,
}

fn y(value: f64, max: f64) -> f64 {
    TOP + (1.0 - value / max) * (HEIGHT - TOP - BOTTOM)
}

fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        format!("{value:.3}")
    }
}

fn frame(out: &mut String, id: &str, title: &str, window: &Window, max: f64, unit: &str) {
    let _ = write!(
        out,
        "<h3>{title}</h3><svg id=\"{id}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" width=\"{WIDTH}\" \
         height=\"{HEIGHT}\" role=\"img\" aria-label=\"{title}\" font-size=\"10\">\
         <line x1=\"{LEFT}\" y1=\"{bottom}\" x2=\"{right}\" y2=\"{bottom}\" stroke=\"#999\"/>\
         <line x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{bottom}\" stroke=\"#999\"/>\
         <text x=\"{lx}\" y=\"{ty}\" text-anchor=\"end\">{max}{unit}</text>\
         <text x=\"{lx}\" y=\"{bottom}\" text-anchor=\"end\">0</text>\
         <text x=\"{LEFT}\" y=\"{label}\">{start} UTC</text>\
         <text x=\"{right}\" y=\"{label}\" text-anchor=\"end\">{end} UTC</text>",
        bottom = HEIGHT - BOTTOM,
        right = WIDTH - RIGHT,
        lx = LEFT - 3.0,
        ty = TOP + 8.0,
        label = HEIGHT - 6.0,
        max = number(max),
        start = window.start.format("%H:%M"),
        end = window.end.format("%H:%M"),
    );
}

fn legend(out: &mut String, series: &[Series]) {
    out.push_str("<p class=\"legend\">");
    for (i, s) in series.iter().enumerate() {
        let _ = write!(
            out,
            "<span style=\"color:{}\">&#9632;</span> {} ",
            COLOURS[i % COLOURS.len()],
            escape(&s.name)
        );
    }
    out.push_str("</p>");
}

fn empty(series: &[Series]) -> bool {
    series.iter().all(|s| s.points.is_empty())
}

/// A line chart of levels; a gap in a series (a minute it could not be
/// read) is a gap in its line.
pub fn lines(
    out: &mut String,
    id: &str,
    title: &str,
    unit: &str,
    window: &Window,
    series: &[Series],
) {
    let max = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0_f64, f64::max);
    let max = if max > 0.0 { max } else { 1.0 };
    frame(out, id, title, window, max, unit);
    for (i, s) in series.iter().enumerate() {
        let _ = write!(
            out,
            "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" data-series=\"{}\" \
             data-points=\"{}\" points=\"",
            COLOURS[i % COLOURS.len()],
            escape(&s.name),
            s.points.len()
        );
        for (t, v) in &s.points {
            let _ = write!(out, "{:.1},{:.1} ", window.x(*t), y(*v, max));
        }
        out.push_str("\"/>");
    }
    out.push_str("</svg>");
    if empty(series) {
        out.push_str("<p class=\"none\">none</p>");
    }
    legend(out, series);
}

/// A chart of counts per minute, the series stacked in each minute's bar.
/// Zero counts draw nothing.
pub fn bars(out: &mut String, id: &str, title: &str, window: &Window, series: &[Series]) {
    let mut totals: std::collections::BTreeMap<NaiveDateTime, f64> = Default::default();
    for s in series {
        for (t, v) in &s.points {
            *totals.entry(*t).or_default() += v;
        }
    }
    let max = totals.values().copied().fold(0.0_f64, f64::max);
    let max = if max > 0.0 { max } else { 1.0 };
    frame(out, id, title, window, max, "");
    let mut stacked: std::collections::BTreeMap<NaiveDateTime, f64> = Default::default();
    let width = window.minute();
    for (i, s) in series.iter().enumerate() {
        for (t, v) in s.points.iter().filter(|p| p.1 > 0.0) {
            let below = stacked.entry(*t).or_default();
            let top = y(*below + v, max);
            let height = y(*below, max) - top;
            *below += v;
            let minute = t.format("%Y-%m-%dT%H:%M");
            let _ = write!(
                out,
                "<rect x=\"{:.1}\" y=\"{top:.1}\" width=\"{width:.1}\" height=\"{height:.1}\" \
                 fill=\"{}\" data-minute=\"{minute}\" data-kind=\"{name}\" data-value=\"{}\">\
                 <title>{minute} UTC {name}: {}</title></rect>",
                window.x(*t),
                COLOURS[i % COLOURS.len()],
                number(*v),
                number(*v),
                name = escape(&s.name),
            );
        }
    }
    out.push_str("</svg>");
    if empty(series) {
        out.push_str("<p class=\"none\">none</p>");
    }
    legend(out, series);
}
