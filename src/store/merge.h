#pragma once
#include <cstdint>
#include <string>

namespace gputune {

// What merging one database into another did.
struct MergeCounts {
  std::string input;  // the file merged in
  std::string host;   // the host that created it
  std::string created_at;
  int64_t workloads_added = 0;
  int64_t variants_added = 0;   // configs the output had not measured
  int64_t attempts_copied = 0;  // measurement rows copied, for new and better variants alike
  int64_t replaced = 0;         // variants both measured where the input's lower median now counts
  int64_t kept = 0;  // variants both measured where the output's measurement still counts
  int64_t searches_copied = 0;
  bool changed() const { return workloads_added + attempts_copied + searches_copied > 0; }
};

// Merges the database `input` into `output` (created if missing) in one transaction:
// devices, specs, workloads, variants, measurements and searches. A variant new to the output
// arrives with every attempt; one both measured keeps the output's attempts, and the input's
// latest follows them (and so counts) only where it is better: ok where the output's is not, or
// a lower median. Rows are matched by content, so merging the same input again changes
// nothing. Copied rows name their origin (file, its host, its row). Throws Error(kDb) for a
// file that is not a gputune database or has a newer schema, and Error(kUsage) for an input
// that is the output; Error(kDb) naming the input for one that fails SQLite's integrity check,
// before anything is merged. Inputs are only read: one of an older schema is upgraded in a
// private copy, which is merged (its rows still name the input as their origin).
MergeCounts merge_database(const std::string& output, const std::string& input);

}  // namespace gputune
