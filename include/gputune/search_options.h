#pragma once
// The options of `gputune search`, in one table for both front ends: the command line makes its
// options (and their --help) from it, Python's search() takes the same names (a dash becomes an
// underscore), and both hand the text given to set_search_option, which checks it and says
// what it expected in one message. A new search option is a field of SearchRequest and a row
// here; neither front end changes.
#include <cstddef>
#include <string>
#include <vector>

#include "gputune/session.h"

namespace gputune {

struct SearchOption {
  std::string name;          // as on the command line: "timeout-floor"
  std::string value;         // what it takes, for --help ("N", "SECONDS"); empty: a flag
  std::string default_text;  // the default --help shows; empty: none shown
  std::string help;
};
// Every option of SearchRequest but the spec, --set and --db (which every command that takes a
// spec shares), in --help's order.
const std::vector<SearchOption>& search_options();

// Sets option `name` (a search_options() name) of `request` from `text`: "" for a flag, else
// the option's value as the command line takes it. Error(kUsage) for an unknown name, a flag
// given a value or a value that is not what the option takes.
void set_search_option(SearchRequest* request, const std::string& name, const std::string& text);

// --jobs N (search, release, analyze --all): a count from 1 to kMaxJobs; anything else is a
// usage error, before anything compiles. Leaving it out (0) means one per CPU.
constexpr size_t kMaxJobs = 1024;
size_t parse_jobs(const std::string& text);

}  // namespace gputune
