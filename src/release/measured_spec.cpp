#include "release/measured_spec.h"

#include <filesystem>

#include "gputune/error.h"
#include "spec/spec_loader.h"

namespace gputune {

Spec load_measured_spec(const KernelIdentity& kernel, const MeasuredKernel& measured,
                        const std::vector<Spec>& given_specs) {
  std::string location;
  for (const Spec& given : given_specs) {
    if (given.kernel_name.text != kernel.name) continue;
    if (location.empty() || given.spec_hash() == kernel.space_hash) location = given.path;
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  if (location.empty() && fs::is_regular_file(measured.spec_path, ec)) {
    location = measured.spec_path;
  }
  // Databases before absolute spec paths kept the path as typed, relative to where the search
  // ran: most often the database's own folder.
  const fs::path beside_database =
      fs::absolute(measured.database, ec).parent_path() / measured.spec_path;
  if (location.empty() && fs::path(measured.spec_path).is_relative() &&
      fs::is_regular_file(beside_database, ec)) {
    location = beside_database.lexically_normal().string();
  }
  if (location.empty()) {
    throw Error(ErrorCode::kSpec,
                "kernel '" + kernel.name + "' (results in " + measured.database +
                    "): its spec file " + measured.spec_path +
                    " no longer exists; pass --spec FILE with the spec it was measured with");
  }
  Spec spec = parse_spec(measured.spec_text, location);
  if (spec.source_hash() != kernel.source_hash) {
    throw Error(ErrorCode::kSpec,
                location + ": kernel source " + spec.kernel_path + " has source hash " +
                    spec.source_hash() + ", but the results of kernel '" + kernel.name + "' in " +
                    measured.database + " were measured with source hash " + kernel.source_hash +
                    ": the kernel changed since it was tuned. Pass --spec with the spec of the "
                    "source that was measured, or search again with the current source");
  }
  return spec;
}

}  // namespace gputune
