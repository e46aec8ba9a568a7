"""accessor: `.isw` on xarray objects: a decoded category's codes, names and CF flags, and
plots with impactplot's class colours and a legend (`ds.regime.isw.plot()`), or of a
number with its short label and unit (`ds.p_cc.isw.plot()`)."""

from typing import Dict, List, Optional

import numpy as np
import xarray as xr

from ._reading import categories_of


@xr.register_dataarray_accessor("isw")
class ImpactsweepArray:
    """impactsweep's view of one variable of a result (decoded or not)."""

    def __init__(self, da: xr.DataArray):
        self._da = da

    @property
    def flags(self) -> Optional[Dict[int, str]]:
        """{code: name} of a categorical variable (its CF flags), else None."""
        return categories_of(self._da)

    @property
    def names(self) -> List[str]:
        """The names of a categorical variable's classes, in code order ([] if none)."""
        flags = self.flags or {}
        return [flags[c] for c in sorted(flags)]

    @property
    def is_category(self) -> bool:
        return self.flags is not None

    @property
    def codes(self) -> xr.DataArray:
        """A categorical variable as its codes (float, NaN where not computed), whether it
        holds names (decoded) or codes."""
        da, flags = self._da, self.flags
        if flags is None:
            raise TypeError(f"{da.name}: not a categorical variable (no flag_meanings)")
        if da.dtype.kind not in "US":
            return da.astype(float)
        lookup = {name: code for code, name in flags.items()}

        def to_codes(names):
            out = np.full(names.shape, np.nan)
            for name, code in lookup.items():
                out[names == name] = code
            return out

        return xr.apply_ufunc(to_codes, da, dask="parallelized", output_dtypes=[float],
                              keep_attrs=True)

    def label(self) -> str:
        """The short label and unit: '$p_{\\mathrm{CC}}$ [1]'."""
        attrs = self._da.attrs
        text = attrs.get("label") or attrs.get("long_name") or str(self._da.name)
        unit = attrs.get("units")
        return f"{text} [{unit}]" if unit and unit != "1" else str(text)

    def plot(self, ax=None, x: Optional[str] = None, y: Optional[str] = None, **kwargs):
        """A map (two dimensions) or a curve (one): a category with impactplot's class
        colours, a legend of the classes present, and 'not computed' in grey; a number as
        xarray draws it, labelled with the short label and unit. Returns the artist."""
        import matplotlib.pyplot as plt
        from matplotlib.colors import BoundaryNorm, ListedColormap
        from matplotlib.patches import Patch

        da = self._da
        if ax is None:
            ax = plt.gca()
        if not self.is_category:
            if da.ndim == 2:
                kwargs.setdefault("cbar_kwargs", {"label": self.label()})
            return da.plot(ax=ax, x=x, y=y, **kwargs)
        from impactplot import style  # the documented class colours

        flags = self.flags
        codes = self.codes
        order = sorted(flags)
        colours = [style.class_colour(flags[c], c) for c in order]
        cmap = ListedColormap(colours)
        cmap.set_bad(style.NOT_COMPUTED_COLOUR)
        norm = BoundaryNorm([c - 0.5 for c in order] + [order[-1] + 0.5], len(order))
        if da.ndim == 1:
            artist = ax.scatter(codes[codes.dims[0]].values if codes.dims[0] in codes.coords
                                else np.arange(codes.size), codes.values,
                                c=codes.values, cmap=cmap, norm=norm, **kwargs)
            ax.set_yticks(order, [style.class_label(flags[c]) for c in order])
        else:
            artist = codes.plot(ax=ax, x=x, y=y, cmap=cmap, norm=norm, add_colorbar=False,
                                **kwargs)
        present = set(np.unique(codes.values[np.isfinite(codes.values)]).astype(int).tolist())
        handles = [Patch(facecolor=style.class_colour(flags[c], c),
                         label=style.class_label(flags[c])) for c in order if c in present]
        if np.isnan(codes.values).any():
            handles.append(Patch(facecolor=style.NOT_COMPUTED_COLOUR,
                                 label=style.NOT_COMPUTED_LABEL))
        ax.legend(handles=handles, title=da.attrs.get("label") or da.name, fontsize="small")
        return artist


@xr.register_dataset_accessor("isw")
class ImpactsweepDataset:
    """impactsweep's view of a result Dataset."""

    def __init__(self, ds: xr.Dataset):
        self._ds = ds

    @property
    def categories(self) -> List[str]:
        """The categorical variables."""
        return [n for n, da in self._ds.data_vars.items() if categories_of(da) is not None]

    @property
    def outputs(self) -> List[str]:
        """The model's outputs, in the file's order."""
        named = str(self._ds.attrs.get("outputs", "")).split()
        return [n for n in named if n in self._ds] or [n for n in self._ds.data_vars
                                                       if n not in ("status", "error")]

    def done(self) -> xr.DataArray:
        """Where the points were computed (status done)."""
        status = self._ds["status"]
        return status == "done" if status.dtype.kind in "US" else status == 1
