# Spack recipe for impactsweep (Spack 0.21.3 or later: earlier versions do not read
# language dependencies such as depends_on("c")). There is no release tarball and no
# public copy of the repository yet, so the recipe builds a checkout: from the source
# directory, `spack repo add packaging/spack` and then `spack dev-build impactsweep@main`,
# or in an environment `spack develop --path $PWD impactsweep@main` and `spack install`.
# `spack install --test=root` also builds and runs the CUnit and MPI tests (ctest), and
# `spack test run impactsweep` runs the checks of the installed tree below.
#
# The dependencies carry Spack's own package names and variants (read from the builtin
# repository, spack/spack-packages): libinih (inih's package), hdf5 +mpi +hl (parallel
# HDF5 with the high-level library, for the dimension scales), sundials +CVODE with
# double precision (impactsweep uses only CVODE and the serial N_Vector, so sundials' own
# +mpi is not needed), cunit for the tests (a test dependency: Spack adds it only when the
# tests run, and run_tests turns IMPACTSWEEP_TESTS on). Target flags are Spack's own
# (target=...), so the build never asks for -march=native. The package is an API v1 repository (this
# layout and repo.yaml), which Spack 0.x reads and Spack 1.x still reads.
import os

from spack.package import *

try:  # Spack >= 1.0: the build systems live in the builtin package repository
    from spack_repo.builtin.build_systems.cmake import CMakePackage
except ImportError:  # Spack 0.x: spack.package exports them
    pass


class Impactsweep(CMakePackage):
    """Parallel parameter-sweep engine for impacting mechanical systems: chattering
    rigid bodies, Bouc-Wen collision laws (CVODE), a coupled oscillator with a stop, and
    plug-in models built against its installed contract. MPI master/worker scheduling,
    one shared parallel-HDF5 result file per sweep."""

    homepage = "https://github.com/impactsweep/impactsweep"
    # the project's repository; it has no public copy yet: use `spack dev-build` or
    # `spack develop` on a checkout (see the top of this file)
    git = "https://github.com/impactsweep/impactsweep.git"

    version("main", branch="main")

    variant("plot", default=True,
            description="impactplot's Python dependencies (h5py, h5netcdf, xarray, "
                        "matplotlib), named in its #! line")

    depends_on("c", type="build")
    depends_on("cmake@3.18:", type="build")
    depends_on("pkgconfig", type="build")  # finds libinih (inih.pc) and cunit (cunit.pc)

    depends_on("mpi")
    # parallel HDF5 with the high-level library (dimension scales); 1.10 to 1.14 are the
    # versions impactsweep is built and tested with (2.x is not tried yet)
    depends_on("hdf5@1.10:1.14 +mpi+hl")
    # CVODE (its variant is upper case in Spack) in double precision. The code uses the
    # SUNDIALS 6 API (realtype, SUNContext_Create(NULL, ...)), which SUNDIALS 7 changed.
    depends_on("sundials@6 +CVODE precision=double")
    depends_on("libinih")
    depends_on("cunit", type="test")

    with when("+plot"):
        depends_on("python@3.8:", type="run")
        depends_on("py-numpy", type="run")
        depends_on("py-h5py", type="run")
        depends_on("py-h5netcdf", type="run")
        depends_on("py-xarray", type="run")
        depends_on("py-matplotlib", type="run")

    def cmake_args(self):
        args = [
            self.define("IMPACTSWEEP_NATIVE", False),  # Spack's target= sets the CPU flags
            self.define("IMPACTSWEEP_TESTS", self.run_tests),
            self.define("IMPACTSWEEP_SANITIZE", False),
        ]
        # the interpreter in bin/impactplot's #! line
        if self.spec.satisfies("+plot"):
            args.append(self.define("IMPACTSWEEP_PYTHON", self.spec["python"].command.path))
        else:
            args.append(self.define("IMPACTSWEEP_PYTHON", "/usr/bin/env python3"))
        return args

    # --- stand-alone tests (`spack test run impactsweep`) on the installed tree ---------

    def test_models(self):
        """the installed binary lists its built-in models"""
        impactsweep = which(self.prefix.bin.impactsweep, required=True)
        out = impactsweep("models", output=str, error=str)
        for model in ("chatter:", "collision:", "stop-oscillator:"):
            assert model in out, f"impactsweep models does not list {model}"

    def test_eval(self):
        """one chatter point evaluated by the installed binary"""
        impactsweep = which(self.prefix.bin.impactsweep, required=True)
        out = impactsweep("eval", "chatter", "rho=0.3", "gamma=0.1", "samples=10",
                          output=str, error=str)
        assert '"status": "DONE"' in out, out

    def test_sweep(self):
        """a small sweep of the installed example job, read back with info"""
        impactsweep = which(self.prefix.bin.impactsweep, required=True)
        job = join_path(self.prefix.share.impactsweep.jobs, "example.ini")
        impactsweep("run", job, "--set", "axis.rho.count=4", "--set", "model.samples=5",
                    "--output", "spack-test.h5", "--overwrite", output=str, error=str)
        out = impactsweep("info", "spack-test.h5", output=str, error=str)
        assert " 0 failed, 0 pending" in out, out

    def test_contract(self):
        """the installed model contract compiles on its own (C11)"""
        cc = Executable(os.environ["CC"])  # the build's compiler, as Spack's hdf5 tests do
        header = join_path(self.prefix.include.impactsweep, "model.h")
        cc("-std=c11", "-fsyntax-only", "-x", "c", header)

    def test_impactplot(self):
        """impactplot starts with the interpreter of its #! line"""
        if not self.spec.satisfies("+plot"):
            raise SkipTest("impactplot's Python dependencies come with +plot")
        impactplot = which(self.prefix.bin.impactplot, required=True)
        out = impactplot("--help", output=str, error=str)
        assert "impactsweep result file" in out, out
