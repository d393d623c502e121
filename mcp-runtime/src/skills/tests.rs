use super::*;
use serde_json::json;
use std::fs;
use std::path::PathBuf;

/// A fresh folder under the temp dir, removed when dropped.
struct Folder(PathBuf);

impl Folder {
    fn new(name: &str) -> Folder {
        let dir = std::env::temp_dir().join(format!("mcp-skills-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        Folder(dir)
    }

    fn write(&self, path: &str, bytes: impl AsRef<[u8]>) -> &Folder {
        let file = self.0.join(path);
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(file, bytes).unwrap();
        self
    }

    fn skill(&self, dir: &str, name: &str) -> &Folder {
        self.write(
            &format!("{dir}/SKILL.md"),
            format!("---\nname: {name}\ndescription: The {name} skill\n---\n\n# {name}\n"),
        )
    }

    fn refused(&self) -> SkillsError {
        Skills::from_dir(&self.0).unwrap_err()
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn sha256(bytes: &[u8]) -> String {
    format!(
        "sha256:{}",
        Sha256::digest(bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    )
}

#[test]
fn each_skill_lists_every_file_with_its_digest_and_size() {
    let folder = Folder::new("entries");
    let manifest = "---\nname: pdf-processing\ndescription: Fill PDF forms\nlicense: MIT\n---\n\nSee references/FORMS.md.\n";
    folder
        .write("pdf-processing/SKILL.md", manifest)
        .write("pdf-processing/references/FORMS.md", "# Forms\n")
        .write("pdf-processing/scripts/fill.py", "print('x')\n")
        .write("pdf-processing/.git/config", "[core]\n")
        .write("README.md", "not part of a skill\n");
    folder.skill("acme/billing/refunds", "refunds");
    let skills = Skills::from_dir(&folder.0).unwrap();
    assert_eq!(skills.len(), 2);
    let uris: Vec<&str> = skills
        .entries()
        .iter()
        .map(|e| e.skill.uri.as_str())
        .collect();
    assert_eq!(
        uris,
        [
            "skill://acme/billing/refunds/SKILL.md",
            "skill://pdf-processing/SKILL.md"
        ]
    );
    let pdf = skills.get("skill://pdf-processing/SKILL.md").unwrap();
    assert_eq!(
        serde_json::to_value(&pdf.skill).unwrap(),
        json!({
            "uri": "skill://pdf-processing/SKILL.md",
            "frontmatter": {"name": "pdf-processing", "description": "Fill PDF forms", "license": "MIT"},
            "resources": [
                {"uri": "skill://pdf-processing/SKILL.md", "digest": sha256(manifest.as_bytes()),
                 "size": manifest.len()},
                {"uri": "skill://pdf-processing/references/FORMS.md", "digest": sha256(b"# Forms\n"),
                 "size": 8},
                {"uri": "skill://pdf-processing/scripts/fill.py", "digest": sha256(b"print('x')\n"),
                 "size": 11},
            ],
        })
    );
    // The rendered entry is the typed one, byte for byte.
    assert_eq!(
        pdf.rendered.get(),
        serde_json::to_string(&pdf.skill).unwrap()
    );
    assert_eq!(
        (pdf.name(), pdf.description()),
        ("pdf-processing", "Fill PDF forms")
    );
    // Every file of a skill is a resource; hidden files and files outside
    // every skill are not.
    let listed: Vec<String> = skills
        .resources()
        .unwrap()
        .iter()
        .map(|r| format!("{} {} {}", r.uri(), r.name(), r.mime_type().unwrap()))
        .collect();
    assert_eq!(
        listed,
        [
            "skill://acme/billing/refunds/SKILL.md refunds text/markdown",
            "skill://pdf-processing/SKILL.md pdf-processing text/markdown",
            "skill://pdf-processing/references/FORMS.md FORMS.md text/markdown",
            "skill://pdf-processing/scripts/fill.py fill.py text/x-python",
        ]
    );
    assert!(
        skills
            .get("skill://pdf-processing/references/FORMS.md")
            .is_none()
    );
}

#[test]
fn directories_list_their_direct_children() {
    let folder = Folder::new("directories");
    folder
        .skill("pdf-processing", "pdf-processing")
        .write("pdf-processing/templates/invoice.md", "i")
        .write("pdf-processing/templates/regional/eu.md", "eu")
        .skill("acme/billing/refunds", "refunds");
    let skills = Skills::from_dir(&folder.0).unwrap();
    let names = |uri: &str| -> Vec<(String, Option<String>)> {
        skills
            .directory(uri)
            .unwrap_or_else(|| panic!("{uri} is a directory"))
            .iter()
            .map(|c| (c.uri.clone(), c.mime_type.clone()))
            .collect()
    };
    let dir = Some("inode/directory".to_owned());
    let md = Some("text/markdown".to_owned());
    assert_eq!(
        names("skill://pdf-processing"),
        [
            ("skill://pdf-processing/SKILL.md".into(), md.clone()),
            ("skill://pdf-processing/templates".into(), dir.clone()),
        ]
    );
    assert_eq!(
        names("skill://pdf-processing/templates"),
        [
            (
                "skill://pdf-processing/templates/invoice.md".into(),
                md.clone()
            ),
            (
                "skill://pdf-processing/templates/regional".into(),
                dir.clone()
            ),
        ]
    );
    // The prefix above a skill is a directory too.
    assert_eq!(
        names("skill://acme"),
        [("skill://acme/billing".into(), dir)]
    );
    let invoice = &skills
        .directory("skill://pdf-processing/templates")
        .unwrap()[0];
    assert_eq!(
        (invoice.name.as_str(), invoice.size),
        ("invoice.md", Some(1))
    );
    assert!(
        skills
            .directory("skill://pdf-processing/SKILL.md")
            .is_none()
    );
    assert!(skills.directory("skill://pdf-processing/").is_none());
    assert!(skills.directory("skill://nothing").is_none());
}

#[test]
fn a_nested_skill_is_its_own_and_part_of_the_enclosing_one() {
    let folder = Folder::new("nested");
    folder.skill("outer", "outer").skill("outer/inner", "inner");
    let skills = Skills::from_dir(&folder.0).unwrap();
    let outer = skills.get("skill://outer/SKILL.md").unwrap();
    let SkillFiles::Listed(files) = &outer.skill.resources else {
        panic!("listed")
    };
    let uris: Vec<&str> = files.iter().map(|f| f.uri.as_str()).collect();
    assert_eq!(
        uris,
        ["skill://outer/SKILL.md", "skill://outer/inner/SKILL.md"]
    );
    assert!(skills.get("skill://outer/inner/SKILL.md").is_some());
}

#[test]
fn an_empty_folder_serves_no_skill() {
    let folder = Folder::new("empty");
    assert!(Skills::from_dir(&folder.0).unwrap().is_empty());
    let missing = Skills::from_dir(folder.0.join("missing")).unwrap_err();
    assert!(missing.reason().starts_with("cannot be read"), "{missing}");
    folder.write("file", "x");
    let file = Skills::from_dir(folder.0.join("file")).unwrap_err();
    assert_eq!(file.reason(), "not a directory");
}

/// A refusal case: its name, how its folder is made, the file at fault
/// and a part of the reason.
type Case = (&'static str, fn(&Folder), &'static str, &'static str);

/// Each mistake stops the folder with the file at fault and the reason.
#[test]
fn what_cannot_be_served_faithfully_is_refused_with_the_path_and_reason() {
    let cases: [Case; 7] = [
        (
            "no-frontmatter",
            |f| {
                f.write("a/SKILL.md", "# Just a heading\n");
            },
            "a/SKILL.md",
            "does not begin with a YAML frontmatter",
        ),
        (
            "other-name",
            |f| {
                f.skill("a", "b");
            },
            "a/SKILL.md",
            "name \"b\" is not its directory's name \"a\"",
        ),
        (
            "bad-name",
            |f| {
                f.skill("Bad", "Bad");
            },
            "Bad/SKILL.md",
            "naming rules",
        ),
        (
            "root-manifest",
            |f| {
                f.write("SKILL.md", "---\nname: x\ndescription: y\n---\n");
            },
            "SKILL.md",
            "at the folder's root",
        ),
        (
            "space",
            |f| {
                f.skill("a", "a").write("a/my notes.md", "x");
            },
            "a/my notes.md",
            "cannot carry as it is",
        ),
        (
            "binary-manifest",
            |f| {
                f.write("a/SKILL.md", [0xff, 0xfe, 0x00]);
            },
            "a/SKILL.md",
            "not UTF-8 text",
        ),
        (
            "too-many",
            |f| {
                f.skill("a", "a");
                for i in 0..MAX_SKILL_FILES {
                    f.write(&format!("a/f{i}"), "");
                }
            },
            "a",
            "513 files",
        ),
    ];
    for (name, build, path, reason) in cases {
        let folder = Folder::new(name);
        build(&folder);
        let err = folder.refused();
        assert_eq!(err.path(), folder.0.join(path), "{name}: {err}");
        assert!(err.reason().contains(reason), "{name}: {err}");
        assert!(err.to_string().starts_with("skills: "), "{err}");
    }
}

#[test]
fn a_file_over_a_skills_size_is_refused_before_it_is_read() {
    let folder = Folder::new("huge");
    folder.skill("a", "a");
    let big = fs::File::create(folder.0.join("a/big.bin")).unwrap();
    // Sparse: the size is what is checked, nothing is read.
    big.set_len(MAX_SKILL_BYTES + 1).unwrap();
    let err = folder.refused();
    assert_eq!(err.path(), folder.0.join("a/big.bin"));
    assert!(err.reason().contains("larger than 16777216 bytes"), "{err}");
    // Two files under the limit that together pass it.
    let folder = Folder::new("sum");
    folder.skill("a", "a");
    for name in ["one", "two"] {
        fs::File::create(folder.0.join("a").join(name))
            .unwrap()
            .set_len(MAX_SKILL_BYTES / 2 + 1)
            .unwrap();
    }
    let err = folder.refused();
    assert_eq!(err.path(), folder.0.join("a"));
    assert!(err.reason().contains("16777216 bytes"), "{err}");
}

#[test]
fn too_deep_a_folder_is_refused() {
    let folder = Folder::new("deep");
    let deep = (0..=MAX_DEPTH)
        .map(|i| format!("d{i}"))
        .collect::<Vec<_>>()
        .join("/");
    folder.write(&format!("{deep}/f"), "x");
    let err = folder.refused();
    assert!(
        err.reason().contains("more than 16 directory levels"),
        "{err}"
    );
}

#[cfg(unix)]
#[test]
fn links_and_foreign_names_are_refused() {
    use std::os::unix::ffi::OsStrExt;
    let folder = Folder::new("link");
    folder.skill("a", "a");
    std::os::unix::fs::symlink("/etc/passwd", folder.0.join("a/passwd")).unwrap();
    let err = folder.refused();
    assert_eq!(err.path(), folder.0.join("a/passwd"));
    assert!(err.reason().contains("symbolic link"), "{err}");
    // A link to a directory inside the folder is refused too.
    let folder = Folder::new("dirlink");
    folder.skill("a", "a");
    std::os::unix::fs::symlink(folder.0.join("a"), folder.0.join("b")).unwrap();
    assert!(folder.refused().reason().contains("symbolic link"));
    let folder = Folder::new("latin1");
    folder.skill("a", "a");
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.md");
    fs::write(folder.0.join("a").join(name), "x").unwrap();
    let err = folder.refused();
    assert!(err.reason().contains("not UTF-8"), "{err}");
}
