//! `lfm2`: Liquid LFM2's pythonic call list between `<|tool_call_start|>` and
//! `<|tool_call_end|>`, at every chunking and every prefix. (Its reasoning and marker
//! rules with `gemma4`'s and `olmo3`'s are in `gemma_pythonic.rs`.)

use crate::exact::*;
use toolstream::Format;

#[test]
fn a_line_break_inside_a_quoted_string_is_content() {
    // Issue 33: LFM2 writes multi-line values (shell commands, code) with raw line
    // breaks inside single- or double-quoted strings, invalid Python that SGLang's LFM2
    // parser reads as the string's content; the call was an error.
    check_fixtures(
        Format::Lfm2,
        &[fx(
            "raw line breaks in quoted strings",
            "Run it.<|tool_call_start|>[bash(cmd='cd /tmp\nls -la', note=\"a\r\nb\")]<|tool_call_end|> ok",
            vec![
                one(t("Run it.")),
                call(0, "bash", r#"{"cmd":"cd /tmp\nls -la","note":"a\r\nb"}"#),
                one(t(" ok")),
            ],
        )],
    );
}
