//! OpenAI Responses → Chat Completions (stub).

use super::{Result, Translated, object};
use serde_json::Value;

/// Translates an OpenAI Responses request body into a Chat Completions request.
pub fn from_responses(body: &Value) -> Result<Translated> {
    object(body)?;
    super::Parts::default().finish()
}
