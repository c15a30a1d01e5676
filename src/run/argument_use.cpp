#include "run/argument_use.h"

#include "core/text.h"

namespace gputune {

std::vector<unsigned char> untouched_output(const HostBuffer& buffer) {
  if (!buffer.output || buffer.device_fill) return {};
  if (!buffer.initial.empty()) return {buffer.initial.begin(), buffer.initial.end()};
  // As GpuRunner poisons an output before a checked run.
  const unsigned char poison = is_floating(buffer.shape.type) ? 0xFF : 0xA5;
  return std::vector<unsigned char>(buffer.shape.count * size_of(buffer.shape.type), poison);
}

std::string misused_arguments(const std::vector<HostBuffer>& buffers,
                              const std::vector<std::vector<unsigned char>>& before,
                              const std::vector<std::vector<unsigned char>>& after) {
  std::vector<std::string> written, untouched;
  for (size_t i = 0; i < buffers.size() && i < before.size() && i < after.size(); ++i) {
    const HostBuffer& buffer = buffers[i];
    if (buffer.scratch || buffer.constant || before[i].empty() || after[i].empty()) continue;
    if (before[i] == after[i]) {
      if (buffer.output) untouched.push_back("'" + buffer.shape.name + "'");
    } else if (!buffer.output) {
      written.push_back("'" + buffer.shape.name + "'");
    }
  }
  std::string out;
  if (!written.empty()) {
    out += "changed " + join(written) +
           ", declared read-only (an input, not an output; filled again before each variant's "
           "checked run, so that every variant reads the same inputs)";
  }
  if (!untouched.empty()) {
    out += std::string(out.empty() ? "" : "; ") + "left " + join(untouched) +
           ", declared an output, untouched";
  }
  if (!out.empty()) {
    out +=
        ": expected the arguments the kernel writes declared as its outputs (output: true; in "
        "a T1 file \"Output\": 1 or an AccessType that writes) and the others as inputs";
  }
  return out;
}

}  // namespace gputune
