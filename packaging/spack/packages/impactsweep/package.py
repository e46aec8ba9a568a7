# Spack recipe for impactsweep: `spack repo add packaging/spack` then
# `spack install impactsweep` (or `spack dev-build impactsweep@main` in a checkout).
from spack.package import *


class Impactsweep(CMakePackage):
    """Parallel parameter-sweep engine for impacting mechanical systems: chattering
    rigid bodies, Bouc-Wen collision laws (CVODE), a coupled oscillator with a stop.
    MPI master/worker scheduling, one shared parallel-HDF5 result file per sweep."""

    homepage = "https://github.com/impactsweep/impactsweep"
    git = "https://github.com/impactsweep/impactsweep.git"

    version("main", branch="main")

    variant("native", default=False,
            description="Optimise for the build machine's CPU (-march=native)")
    variant("tests", default=False, description="Build the CUnit and MPI tests")

    depends_on("c", type="build")
    depends_on("cmake@3.18:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("mpi")
    # parallel HDF5 with the high-level library (dimension scales)
    depends_on("hdf5@1.10:+mpi+hl")
    depends_on("sundials@6:+mpi")  # CVODE; built with the same MPI
    depends_on("inih")
    depends_on("cunit", when="+tests")

    def cmake_args(self):
        return [
            self.define_from_variant("IMPACTSWEEP_NATIVE", "native"),
            self.define_from_variant("IMPACTSWEEP_TESTS", "tests"),
        ]
