#pragma once
// A Measurement as a row of the measurements table joined with its variant: the columns walk
// measurement_fields(), so a new field needs only its migration here.
#include <cstdint>
#include <string>

#include "core/sqlite.h"
#include "gputune/measurement.h"

namespace gputune {

// Stored as the same 64 bits: SQLite integers are signed.
inline int64_t to_db(uint64_t index) { return static_cast<int64_t>(index); }
inline uint64_t from_db(int64_t value) { return static_cast<uint64_t>(value); }

// The SELECT list of a measurement with its variant (aliases v and m), one column per field of
// measurement_fields(), in that order.
std::string measurement_columns();
// INSERT INTO measurements: ?1 the variant's id, then bind_measurement's parameters.
std::string measurement_insert_sql();
// A row of measurement_columns(), from column `first` on; `path` names the file in errors.
Measurement read_measurement(const sqlite::Statement& s, int first, const std::string& path);
// `text` from a column that must hold a JSON object (a config, problem values), checked as it
// is read: a database written elsewhere (a merge input, a damaged file) may hold anything
// there, and what prints it would end as an internal error. Throws Error(kDb) naming `path`,
// `what` and the text's start.
const std::string& stored_json_object(const std::string& text, const std::string& path,
                                      const std::string& what);
// Binds a measurement's columns of measurement_insert_sql(), from parameter 2 on.
void bind_measurement(sqlite::Statement& s, const Measurement& m);

}  // namespace gputune
