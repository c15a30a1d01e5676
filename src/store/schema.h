#pragma once
// A gputune database file: its schema, the migrations that bring an older file up to it, and
// the checks that refuse a file that is not one.
#include <memory>
#include <string>

#include "core/sqlite.h"

namespace gputune {

// Opens or creates a gputune database. Throws Error(kDb) for a file that is not one or has a
// newer schema. Read-only: the file must have the current schema. Writable: write-ahead log,
// an older schema migrated, and the file's identity row (database id, host) made if missing.
std::unique_ptr<sqlite::Database> open_store_database(const std::string& path, bool read_only);

// The schema version of a file, read without changing it; 0 for an empty or new file.
int schema_version(const std::string& file);

// The schema this build writes.
int current_schema_version();

}  // namespace gputune
