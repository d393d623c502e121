//! The tools that ask or report along the way: elicitation (`book_table`),
//! tasks with progress and questions (`build_report`, `crawl`), sampling
//! (`sample_content`) and structured output with an image (`chart`).

use mcpfn_runtime::{Audience, Content, Context, ElicitRequest, Structured, ToolError, tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The booking `book_table` made.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Booking {
    /// Whether a table was booked
    booked: bool,
    /// Who the table is booked for, when booked
    name: Option<String>,
    /// Party size
    party: u32,
}

/// The form `book_table` shows the user.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct Guest {
    /// Name for the booking
    name: String,
}

/// The second form `book_table` shows for parties of more than 8.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct Deposit {
    /// Whether to pay the deposit
    pay: bool,
}

/// Book a table, asking the user for the name on the booking.
#[tool(open_world = false)]
pub(crate) async fn book_table(
    ctx: Context,
    /// Number of people, 1 to 20
    party: u32,
) -> Result<Booking, ToolError> {
    if !(1..=20).contains(&party) {
        return Err(ToolError::new("party must be between 1 and 20"));
    }
    let form =
        ElicitRequest::for_type::<Guest>(format!("Whose name is the table for {party} under?"));
    let answer = ctx.elicit("guest", form).await?;
    if !answer.is_accepted() {
        return Ok(Booking {
            booked: false,
            name: None,
            party,
        });
    }
    let guest: Guest = answer.content_as()?;
    // Large parties need a second answer: a round whose requestState already
    // seals the first one (the 2026-07-28 era's multi-round case).
    if party > 8 {
        let form = ElicitRequest::for_type::<Deposit>(format!(
            "A party of {party} needs a deposit. Pay it now for {}?",
            guest.name
        ));
        let answer = ctx.elicit("deposit", form).await?;
        if !answer.is_accepted() || !answer.content_as::<Deposit>()?.pay {
            return Ok(Booking {
                booked: false,
                name: None,
                party,
            });
        }
    }
    Ok(Booking {
        booked: true,
        name: Some(guest.name),
        party,
    })
}

/// What `build_report` built.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Report {
    /// Sections written
    sections: u32,
    /// Whether the appendix is in (the answer to the question asked midway)
    appendix: bool,
    /// The report: a title line, then a line per section (and the appendix)
    text: String,
}

/// The question `build_report` asks midway.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct Appendix {
    /// Whether to include the appendix
    include: bool,
}

/// Crawl 1 to 50 pages, `step_ms` each (at most 10000; 200 when absent),
/// reporting each page. A task when the client declares the Tasks
/// extension; the crawl is idempotent, so when the replica running it dies
/// another starts it again from the first page (`resumable`).
#[tool(
    read_only,
    idempotent,
    open_world = false,
    task = "optional",
    resumable
)]
pub(crate) async fn crawl(
    ctx: Context,
    /// Pages to crawl, 1 to 50
    pages: u32,
    /// Milliseconds per page, at most 10000; 200 when absent
    step_ms: Option<u64>,
) -> Result<String, ToolError> {
    if !(1..=50).contains(&pages) {
        return Err(ToolError::new("pages must be 1 to 50"));
    }
    let step = step_ms.unwrap_or(200);
    if step > 10_000 {
        return Err(ToolError::new("step_ms must be at most 10000"));
    }
    for page in 1..=pages {
        tokio::time::sleep(Duration::from_millis(step)).await;
        ctx.progress(
            f64::from(page),
            Some(f64::from(pages)),
            Some(&format!("page {page} of {pages}")),
        )?;
    }
    Ok(format!("Crawled {pages} pages"))
}

/// Build a report of 1 to 20 sections, `step_ms` per section: progress for
/// each section ("section i of n"), one question midway (whether to include
/// the appendix), cancellable between sections. Runs as a task when the
/// client declares the Tasks extension, else as a plain call.
#[tool(read_only, open_world = false, task = "optional")]
pub(crate) async fn build_report(
    ctx: Context,
    /// Number of sections, 1 to 20
    sections: u32,
    /// Milliseconds each section takes, at most 10000; 500 when absent
    step_ms: Option<u64>,
) -> Result<Report, ToolError> {
    if !(1..=20).contains(&sections) {
        return Err(ToolError::new("sections must be between 1 and 20"));
    }
    let step_ms = step_ms.unwrap_or(500);
    if step_ms > 10_000 {
        return Err(ToolError::new(
            "step_ms must be at most 10000 (ten seconds)",
        ));
    }
    let midway = sections.div_ceil(2);
    let mut text = format!("Report in {sections} sections\n");
    let mut appendix = false;
    for i in 1..=sections {
        // Each section is an await: a cancelled call (`tasks/cancel`, or
        // `notifications/cancelled` for a plain one) drops the future here.
        tokio::time::sleep(Duration::from_millis(step_ms)).await;
        if ctx.is_cancelled() {
            return Err(ToolError::new("the report was cancelled"));
        }
        text.push_str(&format!("{i}. Section {i}\n"));
        // As a task this becomes its statusMessage; `?` stops a cancelled call.
        ctx.progress(
            f64::from(i),
            Some(f64::from(sections)),
            Some(&format!("section {i} of {sections}")),
        )?;
        if i == midway {
            // A task asks through `input_required` and `tasks/update`; a
            // plain 2026-07-28 call ends with an `input_required` round and
            // runs again from the top with the answer; a legacy session
            // asks the client while the call waits.
            let form = ElicitRequest::for_type::<Appendix>(format!(
                "Include the appendix? ({i} of {sections} sections written)"
            ));
            let answer = ctx.elicit("appendix", form).await?;
            appendix = answer.is_accepted() && answer.content_as::<Appendix>()?.include;
        }
    }
    if appendix {
        text.push_str("Appendix\n");
    }
    Ok(Report {
        sections,
        appendix,
        text,
    })
}

/// Return one block of each content kind (text, image, audio, resource link,
/// embedded resource), with annotations; older sessions get text fallbacks.
#[tool(read_only, open_world = false)]
pub(crate) async fn sample_content() -> Vec<Content> {
    // The bytes of a 1x1 transparent PNG and of a WAV file of no samples
    // (its RIFF header only); `Content::image` and `Content::audio` encode
    // them in base64.
    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x04\x00\x00\x00\xb5\x1c\x0c\x02\x00\x00\x00\x0bIDATx\xdacd`\x00\x00\x00\x06\x00\x020\x81\xd0/\x00\x00\x00\x00IEND\xaeB`\x82";
    const WAV: &[u8] = b"RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00@\x1f\x00\x00@\x1f\x00\x00\x01\x00\x08\x00data\x00\x00\x00\x00";
    vec![
        Content::text("One block of each kind follows.").audience(Audience::User),
        Content::image(PNG, "image/png").priority(0.2),
        Content::audio(WAV, "audio/wav"),
        Content::resource_link("file:///reports/2026-q3.pdf", "2026-q3.pdf")
            .mime_type("application/pdf")
            .link_details(Some("Q3 report"), Some("Quarterly figures"), Some(48_213)),
        Content::embedded_text("mem://notes/today", "Buy milk.")
            .mime_type("text/plain")
            .last_modified("2026-11-30T09:00:00Z"),
    ]
}

/// The figures of the values `chart` drew.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Figures {
    /// How many values there are.
    count: usize,
    /// The smallest value.
    min: f64,
    /// The largest value.
    max: f64,
    /// Their mean.
    mean: f64,
}

/// Chart 1 to 50 values: their figures as structured output, and beside
/// them a bar chart of the values as an SVG image.
#[tool(read_only, idempotent, open_world = false)]
pub(crate) async fn chart(
    /// The values, one bar each, left to right
    values: Vec<f64>,
) -> Result<Structured<Figures>, ToolError> {
    if values.is_empty() || values.len() > 50 {
        return Err(ToolError::new(format!(
            "pass 1 to 50 values, not {}",
            values.len()
        )));
    }
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    // A sum past f64::MAX makes the mean infinite: the runtime answers with
    // an error result naming `mean`.
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    let figures = Figures {
        count: values.len(),
        min,
        max,
        mean,
    };
    let svg = bar_chart(&values);
    Ok(Structured::new(figures).with(Content::image(svg.as_bytes(), "image/svg+xml")))
}

/// A bar per value, 100 px for the largest magnitude.
pub(crate) fn bar_chart(values: &[f64]) -> String {
    let scale = values.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    let width = 10 * values.len();
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"100\" viewBox=\"0 0 {width} 100\">"
    );
    for (i, value) in values.iter().enumerate() {
        let height = if scale > 0.0 {
            (100.0 * value.abs() / scale).round()
        } else {
            0.0
        };
        svg.push_str(&format!(
            "<rect x=\"{}\" y=\"{}\" width=\"9\" height=\"{height}\"/>",
            10 * i,
            100.0 - height
        ));
    }
    svg.push_str("</svg>");
    svg
}
