// The table of search options both front ends read: each row sets its own field of the request
// from the text a user gives, and what is not the option's kind of value is refused naming it.
#include "gputune/search_options.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "gputune/error.h"

namespace gputune {
namespace {

std::string usage_message(const std::string& name, const std::string& text) {
  SearchRequest request;
  try {
    set_search_option(&request, name, text);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUsage) << e.what();
    return e.what();
  }
  return "";
}

TEST(SearchOptions, NamesAreUniqueAndEveryOneHasHelp) {
  std::set<std::string> names;
  for (const SearchOption& option : search_options()) {
    EXPECT_TRUE(names.insert(option.name).second) << option.name;
    EXPECT_FALSE(option.help.empty()) << option.name;
    EXPECT_TRUE(option.value.empty() ? option.default_text.empty() : true) << option.name;
  }
  EXPECT_TRUE(names.count("timeout-floor") && names.count("no-prior") && names.count("jobs"));
}

TEST(SearchOptions, EachSetsItsField) {
  SearchRequest request;
  set_search_option(&request, "strategy", "random");
  set_search_option(&request, "seed", "18446744073709551615");
  set_search_option(&request, "no-prior", "");
  set_search_option(&request, "no-cache", "");
  set_search_option(&request, "force", "");
  set_search_option(&request, "jobs", "3");
  set_search_option(&request, "device", "2");
  set_search_option(&request, "timeout-floor", "0.5");
  set_search_option(&request, "max-seconds", "1e-1");
  set_search_option(&request, "shard", "1/4");
  EXPECT_EQ(request.strategy, "random");
  EXPECT_EQ(request.seed, 18446744073709551615ull);
  EXPECT_FALSE(request.use_prior);
  EXPECT_FALSE(request.use_cache);
  EXPECT_TRUE(request.force);
  EXPECT_EQ(request.jobs, 3u);
  EXPECT_EQ(request.device, 2);
  EXPECT_DOUBLE_EQ(request.timeout_floor_s, 0.5);
  EXPECT_DOUBLE_EQ(request.max_seconds.value_or(0), 0.1);
  EXPECT_EQ(request.shard, "1/4");
  // What no option was given for keeps SearchRequest's default.
  EXPECT_EQ(request.sampling, SearchRequest().sampling);
  EXPECT_FALSE(request.compile_only);
}

TEST(SearchOptions, AValueThatIsNotTheOptionsKindIsAUsageErrorNamingIt) {
  EXPECT_NE(usage_message("seed", "-1").find("--seed -1: expected a whole number"),
            std::string::npos);
  EXPECT_NE(usage_message("seed", "18446744073709551616").find("--seed"), std::string::npos);
  EXPECT_NE(usage_message("timeout-factor", "fifty")
                .find("--timeout-factor fifty: expected a "
                      "number"),
            std::string::npos);
  EXPECT_NE(usage_message("jobs", "0").find("--jobs 0: expected a number of compiler processes"),
            std::string::npos);
  EXPECT_NE(usage_message("fast", "yes").find("--fast is a flag"), std::string::npos);
  EXPECT_NE(usage_message("speed", "1")
                .find("no search option 'speed'; expected one of: "
                      "strategy,"),
            std::string::npos);
}

}  // namespace
}  // namespace gputune
