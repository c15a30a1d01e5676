#include "spec/measurement_hash.h"

#include <yaml-cpp/yaml.h>

#include "core/hash.h"
#include "gputune/spec.h"

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
  return stable_hash(out.c_str());
}

std::string Spec::measurement_hash() const { return measurement_hash_of(text); }

}  // namespace gputune
