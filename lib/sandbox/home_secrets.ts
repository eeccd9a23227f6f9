/**
 * THE table of the home folder's credential stores a contained build never sees: bubblewrap hides
 * each that exists, Seatbelt denies reading it, docs/sandbox.md prints it.
 *
 * @module
 */

/**
 * Every credential store hidden from a contained build: its path under the home folder
 * (`/`-separated), and what it holds.
 */
export const HOME_SECRETS = Object.freeze([
  { path: ".ssh", what: "ssh keys, agent and ControlMaster sockets, known hosts" },
  { path: ".gnupg", what: "GnuPG keys and gpg-agent's sockets" },
  { path: ".aws", what: "AWS credentials" },
  { path: ".azure", what: "Azure CLI logins" },
  { path: ".config/gcloud", what: "Google Cloud logins" },
  { path: ".config/gh", what: "GitHub CLI tokens" },
  { path: ".config/hub", what: "hub's GitHub token" },
  { path: ".config/git/credentials", what: "git's stored credentials" },
  { path: ".git-credentials", what: "git's stored credentials" },
  { path: ".netrc", what: "logins for curl, git and ftp" },
  { path: ".docker/config.json", what: "Docker registry logins" },
  { path: ".kube", what: "Kubernetes cluster credentials" },
  { path: ".npmrc", what: "npm registry tokens" },
  { path: ".pypirc", what: "PyPI upload tokens" },
  { path: ".cargo/credentials", what: "crates.io tokens" },
  { path: ".cargo/credentials.toml", what: "crates.io tokens" },
  { path: ".gem/credentials", what: "RubyGems tokens" },
  { path: ".vault-token", what: "HashiCorp Vault token" },
  { path: ".terraform.d/credentials.tfrc.json", what: "Terraform Cloud tokens" },
  { path: ".password-store", what: "pass's password store" },
  { path: ".pgpass", what: "PostgreSQL passwords" },
  { path: ".my.cnf", what: "MySQL client passwords" },
  { path: ".m2/settings.xml", what: "Maven repository credentials" },
  { path: ".gradle/gradle.properties", what: "Gradle repository credentials" },
  { path: ".config/containers/auth.json", what: "Podman registry logins" },
  { path: ".s3cfg", what: "s3cmd credentials" },
  { path: ".config/rclone", what: "rclone remotes and their tokens" },
  { path: ".yarnrc.yml", what: "Yarn registry tokens" },
  { path: ".bash_history", what: "shell history (pasted secrets)" },
  { path: ".zsh_history", what: "shell history (pasted secrets)" },
  { path: ".local/share/fish/fish_history", what: "shell history (pasted secrets)" },
  { path: ".python_history", what: "Python history (pasted secrets)" },
  { path: ".node_repl_history", what: "Node history (pasted secrets)" },
  { path: ".local/share/keyrings", what: "GNOME keyrings" },
  { path: ".mozilla", what: "Firefox profiles (cookies, saved passwords)" },
  { path: ".thunderbird", what: "Thunderbird profiles" },
  { path: ".config/google-chrome", what: "Chrome profiles" },
  { path: ".config/chromium", what: "Chromium profiles" },
  { path: ".config/BraveSoftware", what: "Brave profiles" },
  { path: ".config/microsoft-edge", what: "Edge profiles" },
  { path: "snap/firefox", what: "Firefox (snap) profiles" },
  { path: "Library/Keychains", what: "macOS keychains" },
  { path: "Library/Cookies", what: "macOS cookies" },
  { path: "Library/Application Support/Google/Chrome", what: "Chrome profiles (macOS)" },
  { path: "Library/Application Support/Firefox", what: "Firefox profiles (macOS)" },
].map((entry) => Object.freeze(entry)));
