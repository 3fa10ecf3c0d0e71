//! The members a JSON call's `transform` names, checked when the spec loads.
//!
//! Without `toolstream.keys`, the transform alone says under which members of each call
//! object the name and the arguments are (`{"name": "{content.name}", "arguments":
//! "{content.args}"}`), and a call object with any other member is an error. A typo there
//! (`{content.tol}`) would load and then fail every call; so a member no known chat
//! template uses is refused here, with the known ones and the closest of them. A syntax
//! whose calls really use another member says so in `toolstream.keys`, which skips this
//! check.

use super::SpecError;
use crate::format::edit_distance;

/// The members known chat templates put a call's name under.
const NAME_MEMBERS: &[&str] = &["name", "tool_name", "function_name", "tool"];

/// The members known chat templates put a call's arguments under.
const ARGUMENT_MEMBERS: &[&str] = &["arguments", "parameters", "args", "input", "params"];

/// Checks the name member `name` and the arguments member `args` a transform names at
/// `function_path` (`...transform.function`); `each`: the transform is `transform_each`'s
/// (placeholders `{K}`), else the call object is `content` (`{content.K}`).
pub(super) fn check(
    function_path: &str,
    each: bool,
    name: &str,
    args: &str,
) -> Result<(), SpecError> {
    for (role, member, known) in [
        ("name", name, NAME_MEMBERS),
        ("arguments", args, ARGUMENT_MEMBERS),
    ] {
        if known.contains(&member) {
            continue;
        }
        let placeholder = |m: &str| {
            if each {
                format!("\"{{{m}}}\"")
            } else {
                format!("\"{{content.{m}}}\"")
            }
        };
        let closest = known
            .iter()
            .map(|k| (edit_distance(member, k), *k))
            .filter(|(d, _)| *d <= 2)
            .min_by_key(|(d, _)| *d)
            .map(|(_, k)| format!(" Did you mean {}?", placeholder(k)))
            .unwrap_or_default();
        return Err(SpecError::new(
            format!("{function_path}.{role}"),
            format!(
                "{} names the member `{member}`, which no known call object has (the {role} members: {}).{closest} If the model's calls really have `{member}`, say so in toolstream.keys: {{\"name\": [\"{}\"], \"arguments\": [\"{}\"]}}",
                placeholder(member),
                known.join(", "),
                name,
                args
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_members_pass_and_a_typo_names_the_closest() {
        assert!(check("t.function", false, "name", "args").is_ok());
        assert!(check("t.function", true, "tool_name", "parameters").is_ok());
        let e = check("t.function", false, "name", "tol").unwrap_err();
        assert_eq!(e.path(), "t.function.arguments");
        let m = e.to_string();
        assert!(
            m.contains("`tol`") && m.contains("arguments, parameters, args"),
            "{m}"
        );
        assert!(m.contains("\"arguments\": [\"tol\"]"), "{m}");
        let e = check("t.function", false, "name", "argumnets").unwrap_err();
        assert!(
            e.to_string()
                .contains("Did you mean \"{content.arguments}\"?"),
            "{e}"
        );
        let e = check("t.function", true, "nmae", "arguments").unwrap_err();
        assert_eq!(e.path(), "t.function.name");
        assert!(e.to_string().contains("Did you mean \"{name}\"?"), "{e}");
    }
}
