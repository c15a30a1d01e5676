#include "release/embedded_code.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "compile/compiler.h"
#include "compile/compiler_log.h"
#include "core/text.h"
#include "gputune/error.h"

namespace gputune {
namespace {

int architecture_number(const std::string& arch) {
  return std::stoi(arch.substr(arch.find('_') + 1));
}

// "sm_90", "sm_90a": at most four digits, so that the number is an int.
bool is_real_architecture(const std::string& arch) {
  if (arch.compare(0, 3, "sm_") != 0) return false;
  const size_t end = skip_digits(arch, 3);
  if (end == 3 || end > 7) return false;
  return end == arch.size() || (end + 1 == arch.size() && arch[end] >= 'a' && arch[end] <= 'z');
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : " ") + name;
  return out;
}

}  // namespace

std::vector<std::string> parse_architectures(const std::string& list) {
  std::set<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    const std::string arch = list.substr(start, comma - start);
    if (!is_real_architecture(arch)) {
      throw Error(ErrorCode::kUsage, "--embed " + list + ": '" + arch +
                                         "' is not a GPU architecture; expected a list such as "
                                         "sm_90,sm_80 (or --no-code)");
    }
    check_architecture(arch, "--embed");
    out.insert(arch);
    start = comma + 1;
  }
  return {out.begin(), out.end()};
}

std::vector<std::string> code_targets(const std::vector<std::string>& architectures) {
  std::vector<std::string> out = architectures;
  if (architectures.empty()) return out;
  const auto lowest = std::min_element(architectures.begin(), architectures.end(),
                                       [](const std::string& a, const std::string& b) {
                                         return architecture_number(a) < architecture_number(b);
                                       });
  out.push_back("compute_" + std::to_string(architecture_number(*lowest)));
  return out;
}

std::vector<ReleaseCode> compile_code(const std::vector<CodeJob>& jobs,
                                      const std::vector<std::string>& targets,
                                      CompileService& compiles,
                                      const std::function<void(const std::string&)>& say) {
  std::vector<ReleaseCode> out;
  if (jobs.empty()) return out;
  for (const std::string& target : targets) {
    const bool ptx = is_virtual_architecture(target);
    if (say) {
      say("compiling " + std::to_string(jobs.size()) + " kept configs for " + target +
          (ptx ? " (PTX)" : "") + "...");
    }
    std::map<uint64_t, const CodeJob*> submitted;
    for (const CodeJob& job : jobs) {
      CompileRequest request = job.request;
      request.arch = target;
      submitted.emplace(compiles.submit(request), &job);
    }
    while (!submitted.empty()) {
      for (auto& [ticket, kernel] : compiles.poll(-1)) {
        auto it = submitted.find(ticket);
        if (it == submitted.end()) continue;
        const CodeJob& job = *it->second;
        submitted.erase(it);
        if (!kernel.ok) {
          compiles.cancel();
          throw Error(ErrorCode::kNvrtc, job.what + " does not compile for " + target + ": " +
                                             first_error_line(kernel.log) + "; leave " + target +
                                             " out of --embed, or build with --no-code");
        }
        ReleaseCode code;
        code.config_id = job.config_id;
        code.target = target;
        code.kind = ptx ? "ptx" : "cubin";
        code.entry = joined(kernel.lowered_names);
        code.image = std::move(kernel.image);
        if (!ptx) {
          code.registers = kernel.registers;
          code.shared_bytes = kernel.shared_bytes;
        }
        out.push_back(std::move(code));
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const ReleaseCode& a, const ReleaseCode& b) {
    return std::tie(a.config_id, a.target) < std::tie(b.config_id, b.target);
  });
  return out;
}

}  // namespace gputune
