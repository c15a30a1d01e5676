// A T1 file's BinaryHDF fill, read through libgputune_hdf5.so: the dataset named in DataSource,
// or named as the argument, or the file's only one; its element type and count checked against
// the argument; and a library that cannot be loaded named with how to install it. The HDF5
// files are written by the test (through HDF5 itself, where CMake found it).
#include <elf.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#if GPUTUNE_TEST_HDF5
#include <hdf5.h>
#endif

#include "gputune/error.h"
#include "space/problem.h"
#include "spec/spec_loader.h"
#include "support/t1_scale.h"
#include "support/text.h"
#include "test_paths.h"

namespace gputune {
namespace {

using testing::contains;

class T1Hdf5 : public testing::T1Scale {
 protected:
  void SetUp() override {
    T1Scale::SetUp();
#if !GPUTUNE_TEST_HDF5
    if (std::string(::testing::UnitTest::GetInstance()->current_test_info()->name())
            .rfind("ALibrary", 0) != 0) {
      GTEST_SKIP() << "HDF5 was not found when this build was configured (Debian: apt-get "
                      "install libhdf5-dev, then configure again)";
    }
#endif
  }

#if GPUTUNE_TEST_HDF5
  // Writes `datasets` (name, HDF5 memory type, elements as doubles) into dir_/file.
  struct Dataset {
    std::string name;
    hid_t type;
    std::vector<double> values;
  };
  void write_h5(const std::string& file, const std::vector<Dataset>& datasets) const {
    const hid_t h5 = H5Fcreate((dir_ / file).c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(h5, 0);
    for (const Dataset& d : datasets) {
      const hsize_t dims[1] = {d.values.size()};
      const hid_t space = H5Screate_simple(1, dims, nullptr);
      const hid_t group = d.name.rfind('/') > 0
                              ? H5Gcreate2(h5, d.name.substr(0, d.name.rfind('/')).c_str(),
                                           H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)
                              : -1;
      const hid_t set =
          H5Dcreate2(h5, d.name.c_str(), d.type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      ASSERT_GE(set, 0) << d.name;
      // The values written as doubles; HDF5 converts them to the dataset's type.
      EXPECT_GE(H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, d.values.data()),
                0);
      H5Dclose(set);
      if (group >= 0) H5Gclose(group);
      H5Sclose(space);
    }
    H5Fclose(h5);
  }
  static std::vector<double> counting(size_t count, double first) {
    std::vector<double> values(count);
    for (size_t i = 0; i < count; ++i) values[i] = first + static_cast<double>(i);
    return values;
  }
#endif

  static float element(const ArgumentSpec& arg, size_t i) {
    float value = 0;
    std::memcpy(&value, arg.data->data() + i * sizeof(float), sizeof value);
    return value;
  }
};

#if GPUTUNE_TEST_HDF5

TEST_F(T1Hdf5, TheDatasetNamedAsTheArgumentOrInDataSourceOrTheOnlyOne) {
  write_h5("two.h5", {{"/x", H5T_NATIVE_FLOAT, counting(1024, 3)},
                      {"/inputs/y", H5T_NATIVE_FLOAT, counting(1024, 7)}});
  write_h5("one.h5", {{"/values", H5T_IEEE_F32BE, counting(1024, 11)}});

  Problem named(load_spec(write(R"("FillType": "BinaryHDF", "DataSource": "two.h5")")));
  const ArgumentSpec& x = named.spec().arguments[1];
  ASSERT_EQ(x.fill, Fill::kData);
  ASSERT_EQ(x.data->size(), 1024 * sizeof(float));
  EXPECT_EQ(element(x, 2), 5.0f);

  Problem path(load_spec(write(R"("FillType": "BinaryHDF", "DataSource": "two.h5:/inputs/y")")));
  EXPECT_EQ(element(path.spec().arguments[1], 2), 9.0f);

  // The only dataset, stored big-endian: read in the machine's order.
  Problem only(load_spec(write(R"("FillType": "BinaryHDF", "DataSource": "one.h5")")));
  EXPECT_EQ(element(only.spec().arguments[1], 2), 13.0f);

  // As the expected output.
  write_h5("expected.h5", {{"/expected", H5T_NATIVE_FLOAT, counting(1024, 1)}});
  Problem reference(load_spec(write(R"("FillType": "Constant", "FillValue": 1)", R"(,
    "ReferenceArguments": [{"Name": "expected", "TargetName": "out", "FillType": "BinaryHDF",
                            "DataSource": "expected.h5"}])")));
  const ArgumentSpec& out = reference.spec().arguments[0];
  ASSERT_TRUE(out.reference_fill);
  ASSERT_EQ(out.reference_fill->fill, Fill::kData);
  ASSERT_EQ(out.reference_fill->data->size(), 1024 * sizeof(float));
}

TEST_F(T1Hdf5, AMissingDatasetIsNamedWithThoseTheFileHolds) {
  write_h5("two.h5", {{"/a", H5T_NATIVE_FLOAT, counting(1024, 0)},
                      {"/b", H5T_NATIVE_FLOAT, counting(1024, 0)}});
  std::string error = error_of(write(R"("FillType": "BinaryHDF", "DataSource": "two.h5")"));
  EXPECT_TRUE(contains(error, "scale.json:14:")) << error;
  EXPECT_TRUE(contains(error,
                       "argument 'x' DataSource 'two.h5' has no dataset '/x'; it holds "
                       "/a, /b"))
      << error;
  error = error_of(write(R"("FillType": "BinaryHDF", "DataSource": "two.h5:/c")"));
  EXPECT_TRUE(contains(error, "has no dataset '/c'; it holds /a, /b")) << error;

  error = error_of(write(R"("FillType": "BinaryHDF", "DataSource": "absent.h5")"), ErrorCode::kIo);
  EXPECT_TRUE(contains(error, "'absent.h5' cannot be read (looked for " +
                                  (dir_ / "absent.h5").string() + "); expected an HDF5 file"))
      << error;
  std::ofstream(dir_ / "text.h5") << "not HDF5";
  error = error_of(write(R"("FillType": "BinaryHDF", "DataSource": "text.h5")"), ErrorCode::kIo);
  EXPECT_TRUE(contains(error, "'text.h5' cannot be opened as an HDF5 file")) << error;
}

TEST_F(T1Hdf5, AnotherElementTypeOrCountIsRefusedAtTheArgument) {
  write_h5("wide.h5", {{"/x", H5T_NATIVE_DOUBLE, counting(1024, 0)}});
  std::string error = error_of(write(R"("FillType": "BinaryHDF", "DataSource": "wide.h5")"));
  EXPECT_TRUE(contains(error, "scale.json:14:")) << error;
  EXPECT_TRUE(contains(error,
                       "its dataset holds float64 elements; expected float32 elements, "
                       "the argument's Type"))
      << error;
  write_h5("ints.h5", {{"/x", H5T_NATIVE_INT, counting(1024, 0)}});
  error = error_of(write(R"("FillType": "BinaryHDF", "DataSource": "ints.h5")"));
  EXPECT_TRUE(contains(error, "its dataset holds int32 elements; expected float32")) << error;

  write_h5("short.h5", {{"/x", H5T_NATIVE_FLOAT, counting(1000, 0)}});
  error = error_of(write(R"("FillType": "BinaryHDF", "DataSource": "short.h5")"));
  EXPECT_TRUE(contains(error, "scale.json:12:")) << error;  // the argument's line
  EXPECT_TRUE(contains(error,
                       "argument 'x': its data has 4000 bytes, but ProblemSize_0 = 1024 "
                       "float32 elements need 4096"))
      << error;
}

// The search paths an ELF64 shared library's dynamic section names: {"RPATH", "$ORIGIN"} and
// {"RUNPATH", ...}, each where present.
std::map<std::string, std::string> search_paths(const std::string& elf) {
  std::map<std::string, std::string> out;
  if (elf.size() < sizeof(Elf64_Ehdr) || elf.compare(0, SELFMAG, ELFMAG) != 0) return out;
  Elf64_Ehdr header;
  std::memcpy(&header, elf.data(), sizeof header);
  std::vector<Elf64_Phdr> segments(header.e_phnum);
  for (size_t i = 0; i < segments.size(); ++i) {
    std::memcpy(&segments[i], elf.data() + header.e_phoff + i * header.e_phentsize,
                sizeof(Elf64_Phdr));
  }
  const auto file_offset = [&segments](uint64_t address) -> uint64_t {
    for (const Elf64_Phdr& s : segments) {
      if (s.p_type == PT_LOAD && address >= s.p_vaddr && address < s.p_vaddr + s.p_filesz) {
        return address - s.p_vaddr + s.p_offset;
      }
    }
    return 0;
  };
  std::vector<Elf64_Dyn> entries;
  for (const Elf64_Phdr& s : segments) {
    if (s.p_type != PT_DYNAMIC) continue;
    for (uint64_t at = s.p_offset; at + sizeof(Elf64_Dyn) <= s.p_offset + s.p_filesz;
         at += sizeof(Elf64_Dyn)) {
      Elf64_Dyn entry;
      std::memcpy(&entry, elf.data() + at, sizeof entry);
      if (entry.d_tag == DT_NULL) break;
      entries.push_back(entry);
    }
  }
  uint64_t strings = 0;
  for (const Elf64_Dyn& entry : entries) {
    if (entry.d_tag == DT_STRTAB) strings = file_offset(entry.d_un.d_ptr);
  }
  for (const Elf64_Dyn& entry : entries) {
    if (entry.d_tag == DT_RPATH || entry.d_tag == DT_RUNPATH) {
      out[entry.d_tag == DT_RPATH ? "RPATH" : "RUNPATH"] = elf.c_str() + strings + entry.d_un.d_val;
    }
  }
  return out;
}

// tools/device-bundle.sh stages HDF5 and the libraries it needs beside the reader, for a GPU
// machine without them. An RPATH of $ORIGIN finds them there also where HDF5 asks for its own; a
// RUNPATH (the linker's default) serves only the reader's direct needs, and HDF5's would come
// from the machine's own search path, or not at all.
TEST_F(T1Hdf5, TheReaderFindsHdf5sOwnLibrariesBesideItself) {
  const std::filesystem::path library =
      std::filesystem::path(test::gputune_binary()).parent_path() / "libgputune_hdf5.so";
  std::ifstream in(library, std::ios::binary);
  ASSERT_TRUE(in) << library;
  const std::map<std::string, std::string> paths =
      search_paths(std::string(std::istreambuf_iterator<char>(in), {}));
  ASSERT_TRUE(paths.count("RPATH")) << library << " has no RPATH";
  EXPECT_TRUE(contains(paths.at("RPATH"), "$ORIGIN")) << paths.at("RPATH");
  EXPECT_FALSE(paths.count("RUNPATH")) << paths.at("RUNPATH");
}

#endif  // GPUTUNE_TEST_HDF5

// Runs in every build: the reader is found at run time or named as missing.
TEST_F(T1Hdf5, ALibraryThatCannotBeLoadedIsNamedWithHowToInstallIt) {
  std::ofstream(dir_ / "x.h5") << "never opened";
  ::setenv("GPUTUNE_HDF5_LIBRARY", (dir_ / "libgputune_hdf5.so").c_str(), 1);
  const std::string error =
      error_of(write(R"("FillType": "BinaryHDF", "DataSource": "x.h5")"), ErrorCode::kUsage);
  ::unsetenv("GPUTUNE_HDF5_LIBRARY");
  EXPECT_TRUE(contains(error, "scale.json:14:")) << error;
  EXPECT_TRUE(contains(error,
                       "argument 'x' FillType BinaryHDF: libgputune_hdf5.so, gputune's "
                       "HDF5 reader, cannot be loaded"))
      << error;
  EXPECT_TRUE(contains(error, "apt-get install libhdf5-dev")) << error;
  EXPECT_TRUE(contains(error, "h5dump -b -d DATASET -o FILE")) << error;
}

}  // namespace
}  // namespace gputune
