#pragma once
#include <map>
#include <string>
#include <vector>

#include "gputune/spec.h"

namespace gputune {

// Where each value of a JSON document was written, by JSON pointer ("/A/B/0"): the line and
// column of its key in an object, of the value itself in an array. nlohmann-json keeps no
// positions, so the document is read once more through its SAX interface for them.
class JsonLocations {
 public:
  JsonLocations(const std::string& text, const std::string& path);
  // The pointer's location, or its nearest ancestor's; the file alone when there is none.
  SourceLocation at(const std::string& pointer) const;

 private:
  std::string path_;
  std::map<std::string, SourceLocation> where_;
};

}  // namespace gputune
