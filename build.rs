//! Rebuilds the crate when a migration is added or changed: the migrations
//! are compiled in (`embed_migrations!`), and cargo does not notice a new
//! migration directory on its own.

fn main() {
    println!("cargo:rerun-if-changed=migrations_pg");
    println!("cargo:rerun-if-changed=migrations_oracle");
}
