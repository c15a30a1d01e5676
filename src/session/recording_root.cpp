#include "session/recording_root.h"

#include <filesystem>

#include "spec/spec_catalog.h"

namespace gputune {

std::string recording_spec_file(const std::string& recording_path, const Recording& recording) {
  namespace fs = std::filesystem;
  const fs::path spec_path(recording.info.spec_path);
  if (spec_path.is_absolute()) return spec_path.string();
  std::error_code ec;
  const fs::path folder = fs::absolute(recording_path, ec).parent_path();
  for (fs::path dir = folder; !dir.empty(); dir = dir.parent_path()) {
    if (fs::is_regular_file(dir / spec_path, ec)) return (dir / spec_path).string();
    if (dir == dir.root_path()) break;
  }
  if (!spec_path.filename().empty() && fs::is_regular_file(folder / spec_path.filename(), ec)) {
    return (folder / spec_path.filename()).string();
  }
  return (fs::path(shipped_data_root()) / spec_path).string();
}

}  // namespace gputune
