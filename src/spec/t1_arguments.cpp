#include "spec/t1_arguments.h"

#include <algorithm>
#include <memory>

#include "core/text.h"
#include "spec/t1_fill.h"

namespace gputune {
namespace {

using json = nlohmann::json;

struct ElementType {
  ScalarType type;
  int lanes;  // float4: 4 floats per element
};

// T1 argument types gputune can pass: scalars, and CUDA's vector types as that many scalars.
bool element_type_of(const std::string& name, ElementType* out) {
  static const std::vector<std::pair<std::string, ScalarType>> kScalars = {
      {"bool", ScalarType::kUint8},    {"int8", ScalarType::kInt8},
      {"uint8", ScalarType::kUint8},   {"int16", ScalarType::kInt16},
      {"uint16", ScalarType::kUint16}, {"int32", ScalarType::kInt32},
      {"uint32", ScalarType::kUint32}, {"int64", ScalarType::kInt64},
      {"uint64", ScalarType::kUint64}, {"float", ScalarType::kFloat32},
      {"double", ScalarType::kFloat64}};
  for (const auto& [scalar, type] : kScalars) {
    if (name == scalar) {
      *out = {type, 1};
      return true;
    }
    for (int lanes : {2, 3, 4, 8, 16}) {
      if ((scalar == "float" || scalar == "double") && name == scalar + std::to_string(lanes)) {
        *out = {type, lanes};
        return true;
      }
    }
  }
  return false;
}

void read_argument(const json& item, const std::string& pointer, const T1Fields& fields,
                   const std::string& t1_path, SpecCheckContext* context, ArgumentSpec* arg) {
  if (!item.is_object()) fields.fail(pointer, "an argument must be an object");
  const std::string index = pointer.substr(pointer.rfind('/') + 1);
  arg->name =
      item.contains("Name") ? fields.string_at(item.at("Name"), pointer + "/Name") : "arg" + index;
  arg->where = fields.at(pointer);
  context->where["arguments/" + index + "/name"] = fields.at(pointer + "/Name");
  const std::string what = "argument '" + arg->name + "'";
  const std::string memory =
      fields.string_at(fields.member(item, pointer, "MemoryType", "Scalar, Vector or Symbol"),
                       pointer + "/MemoryType");
  if (memory == "Local") {
    fields.fail(pointer + "/MemoryType", what +
                                             " is Local memory, an OpenCL __local argument that a "
                                             "CUDA kernel has no parameter for; use "
                                             "KernelSpecification.SharedMemory (dynamic shared "
                                             "memory) instead");
  }
  if (memory != "Scalar" && memory != "Vector" && memory != "Symbol") {
    fields.fail(pointer + "/MemoryType", "unknown MemoryType '" + memory + "' for " + what +
                                             "; expected Scalar, Vector or Symbol");
  }
  const std::string type_name_text = fields.string_at(
      fields.member(item, pointer, "Type", "int32, float, double, ..."), pointer + "/Type");
  ElementType element{};
  if (!element_type_of(type_name_text, &element)) {
    fields.fail(pointer + "/Type",
                what + " has type '" + type_name_text +
                    "', which gputune cannot fill; expected bool, int8 .. uint64, "
                    "float, double or floatN/doubleN (half and custom types are "
                    "not supported)");
  }
  arg->type = element.type;
  // A Symbol is the module's __constant__ variable of its Name, filled like a Vector.
  arg->constant = memory == "Symbol";
  arg->is_buffer = memory != "Scalar";
  if (arg->constant) {
    // T1 has no other name for the symbol, so the check's hint at `symbol:` would not apply.
    arg->symbol = arg->name;
    context->where["arguments/" + index + "/constant"] = fields.at(pointer + "/MemoryType");
    context->where["arguments/" + index + "/symbol"] = fields.at(pointer + "/Name");
  }
  if (!arg->is_buffer) {
    if (element.lanes != 1)
      fields.fail(pointer + "/Type", what + " is a vector type passed by value");
    const json& value = fields.member(item, pointer, "FillValue", "the scalar's value");
    arg->value = {fields.expression_at(value, pointer + "/FillValue"),
                  fields.at(pointer + "/FillValue")};
    return;
  }
  // A Symbol without a Size is a single variable (`__constant__ float scale;`).
  const std::string size =
      arg->constant && !item.contains("Size")
          ? "1"
          : fields.expression_at(fields.member(item, pointer, "Size", "the number of elements"),
                                 pointer + "/Size");
  arg->count = {element.lanes == 1 ? size : "(" + size + ") * " + std::to_string(element.lanes),
                fields.at(pointer + "/Size")};
  std::string access = "ReadWrite";
  if (item.contains("AccessType"))
    access = fields.string_at(item.at("AccessType"), pointer + "/AccessType");
  bool output = access == "WriteOnly";
  if (item.contains("Output")) {
    const json& flag = item.at("Output");
    output = flag.is_boolean() ? flag.get<bool>() : (flag.is_number() && flag.get<double>() != 0);
  }
  arg->output = output;
  context->where["arguments/" + index + "/output"] = fields.at(pointer);
  // An output with a fill starts from it (elements the kernel leaves alone compare equal);
  // without one it is poisoned, so that every element must be written.
  arg->initialised = output && (item.contains("FillType") || item.contains("FillValue"));
  if (output && !arg->initialised) return;
  read_t1_fill(item, pointer, fields.locations(), t1_path, what, arg);
}

}  // namespace

void read_t1_arguments(const json& kernel, const T1Fields& fields, const std::string& t1_path,
                       SpecCheckContext* context, Spec* spec) {
  const std::string at = "/KernelSpecification/Arguments";
  if (!kernel.contains("Arguments")) {
    fields.fail("/KernelSpecification",
                "KernelSpecification has no 'Arguments'; expected the kernel's "
                "arguments in order");
  }
  const json& arguments = kernel.at("Arguments");
  if (!arguments.is_array()) fields.fail(at, "Arguments must be a list");
  context->where["arguments"] = fields.at(at);
  for (size_t i = 0; i < arguments.size(); ++i) {
    ArgumentSpec arg;
    read_argument(arguments[i], at + "/" + std::to_string(i), fields, t1_path, context, &arg);
    spec->arguments.push_back(std::move(arg));
  }
}

void read_t1_references(const json& kernel, const T1Fields& fields, const std::string& t1_path,
                        Spec* spec) {
  const std::string at = "/KernelSpecification/ReferenceArguments";
  if (!kernel.contains("ReferenceArguments") || kernel.at("ReferenceArguments").is_null()) return;
  const json& references = kernel.at("ReferenceArguments");
  if (!references.is_array()) fields.fail(at, "ReferenceArguments must be a list");
  std::vector<std::string> outputs;
  for (const ArgumentSpec& arg : spec->arguments) {
    if (arg.output) outputs.push_back(arg.name);
  }
  for (size_t i = 0; i < references.size(); ++i) {
    const std::string pointer = at + "/" + std::to_string(i);
    const json& item = references[i];
    if (!item.is_object()) fields.fail(pointer, "a reference argument must be an object");
    const char* key = item.contains("TargetName") ? "TargetName" : "Name";
    const std::string target =
        fields.string_at(fields.member(item, pointer, key,
                                       "the Name of the output it holds the expected contents of"),
                         pointer + "/" + key);
    auto output = std::find_if(spec->arguments.begin(), spec->arguments.end(),
                               [&](const ArgumentSpec& arg) { return arg.name == target; });
    if (output == spec->arguments.end() || !output->output) {
      fields.fail(
          pointer + "/" + key,
          "reference argument " + std::to_string(i) + " is for '" + target + "', which is " +
              (output == spec->arguments.end() ? "not an argument" : "not an output") +
              suggestion(target, outputs) + "; expected one of the outputs: " +
              (outputs.empty() ? "this file has none (AccessType WriteOnly or \"Output\": 1)"
                               : join(outputs)));
    }
    if (output->reference_fill) {
      fields.fail(pointer + "/" + key,
                  "a second reference argument for '" + target + "'; expected one per output");
    }
    if (item.contains("Type")) {
      ElementType element{};
      const std::string type = fields.string_at(item.at("Type"), pointer + "/Type");
      if (!element_type_of(type, &element) || element.type != output->type) {
        fields.fail(pointer + "/Type", "reference argument for '" + target + "' has type '" + type +
                                           "'; expected the output's, " + type_name(output->type));
      }
    }
    auto reference = std::make_shared<ArgumentSpec>(*output);
    reference->where = fields.at(pointer);
    read_t1_fill(item, pointer, fields.locations(), t1_path,
                 "reference argument for '" + target + "'", reference.get());
    output->reference_fill = std::move(reference);
  }
}

}  // namespace gputune
