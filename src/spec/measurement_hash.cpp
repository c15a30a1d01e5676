#include "spec/measurement_hash.h"

#include <yaml-cpp/yaml.h>

#include "core/hash.h"
#include "gputune/spec.h"
#include "spec/check_override.h"

namespace gputune {

std::string measurement_hash_of(const std::string& spec_text) {
  YAML::Node root;
  try {
    root = YAML::Load(spec_text);
  } catch (const YAML::Exception&) {
    return stable_hash(spec_text);
  }
  if (!root.IsMap()) return stable_hash(spec_text);
  for (const char* key : {"remedies", "description", "search"}) root.remove(key);
  YAML::Emitter out;
  out << root;
  // A check changed from the command line is a comment, which YAML drops; it still counts.
  return stable_hash(out.c_str() + check_override_lines(spec_text));
}

std::string Spec::measurement_hash() const { return measurement_hash_of(text); }

}  // namespace gputune
