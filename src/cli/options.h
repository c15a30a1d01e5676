#pragma once
// What the commands share: parsing with Boost.Program_options, SPEC and --set, exit codes.
#include <boost/program_options.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gputune/session.h"

namespace gputune::cli {

namespace po = boost::program_options;

constexpr int kInterrupted = 130;
constexpr int kSomeVariantsFailed = 1;

// The parsed options, or nullopt after printing the help (the options, then `examples`) that
// --help asked for.
std::optional<po::variables_map> parse(const std::vector<std::string>& args,
                                       const po::options_description& options,
                                       const po::positional_options_description& positional = {},
                                       const std::string& examples = "");

// SPEC, --set, --db, --json and --help, as every command that takes a spec has them.
void add_spec_options(po::options_description& options);
// --set n=4096 --set m=4096,n=2*m: every assignment, in order.
ProblemOverrides parse_overrides(const po::variables_map& vm);
std::string required_spec(const po::variables_map& vm);
// The spec of SPEC and --set, its warnings (Spec::warnings) printed as print_warnings does.
Spec open_spec_of(const po::variables_map& vm);

// What the session returned for the user, each as "gputune: warning: ..." on stderr.
void print_warnings(const std::vector<std::string>& warnings);

// --jobs N (`po::value<std::string>()`, no default) as parse_jobs reads it (gputune/
// search_options.h), or 0 (one compiler process per CPU) where it is not given.
size_t jobs_option(const po::variables_map& vm);

}  // namespace gputune::cli
