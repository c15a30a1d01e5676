#include "session/recording_root.h"

#include <filesystem>

#include "spec/spec_catalog.h"

namespace gputune {

std::string recording_root(const std::string& recording_path, const Recording& recording) {
  namespace fs = std::filesystem;
  const std::string data_root = shipped_data_root();
  const fs::path spec_path(recording.info.spec_path);
  std::error_code ec;
  if (spec_path.is_absolute() ||
      (!data_root.empty() && fs::exists(fs::path(data_root) / spec_path, ec))) {
    return data_root;
  }
  for (fs::path dir = fs::absolute(recording_path, ec).parent_path(); !dir.empty();
       dir = dir.parent_path()) {
    if (fs::exists(dir / spec_path, ec)) return dir.string();
    if (dir == dir.root_path()) break;
  }
  return data_root;
}

}  // namespace gputune
