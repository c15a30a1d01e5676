#pragma once
#include <string>

namespace gputune {

// The unified diff (`diff -u`'s format, 3 lines of context) that turns `before` into `after`,
// headed `--- before_name` / `+++ after_name`; "" when the texts are equal. Line-based, by the
// longest common subsequence: meant for kernel files (a few thousand lines at most); beyond
// that, one hunk replaces the differing middle.
std::string unified_diff(const std::string& before, const std::string& after,
                         const std::string& before_name, const std::string& after_name);

}  // namespace gputune
