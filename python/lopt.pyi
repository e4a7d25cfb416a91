# Type stubs of the Python module lopt (python/lopt_module.c), installed
# beside it; python/test_lopt.py checks that they name the parameters
# inspect.signature gives.
from typing import Any, Mapping, NamedTuple, Optional, Sequence, Union

import numpy as np

__version__: str

Value = Union[np.ndarray, tuple["Value", ...]]


class Error(Exception):
    diagnostics: list["Diagnostic"]


class LimitError(Error): ...


class Diagnostic(NamedTuple):
    file: Optional[str]
    line: int
    column: int
    severity: str
    message: str
    source_line: str


class ExplainRecord(NamedTuple):
    file: str
    line: int
    column: int
    pass_name: str
    message: str


class Module:
    def script(self, /, style: str = "canonical") -> str: ...
    def apply(self, /, pipeline: str, verify_exec: bool = False, ulp: int = 0,
              report: Optional[str] = None, timeout: Optional[float] = None,
              max_memory: Optional[int] = None) -> "Module": ...
    def explain(self, pipeline: str, /) -> list[ExplainRecord]: ...
    def run(self, /, inputs: Optional[Mapping[str, Any]] = None, seed: int = 1, entry: str = "main",
            shapes: Optional[Mapping[str, Sequence[int]]] = None, max_steps: Optional[int] = None,
            threads: int = 1, cast: bool = False, timeout: Optional[float] = None,
            max_memory: Optional[int] = None) -> Value: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...


class IndexMap:
    def __init__(self, map: str, shape: Sequence[int]) -> None: ...
    def inverse(self, /) -> "IndexMap": ...
    def compose(self, other: "IndexMap", /) -> "IndexMap": ...
    def apply(self, index: Sequence[int], /) -> tuple[int, ...]: ...
    @property
    def kind(self) -> str: ...
    @property
    def padding(self) -> Optional[str]: ...
    @property
    def shape(self) -> tuple[int, ...]: ...
    @property
    def output_shape(self) -> tuple[int, ...]: ...


def parse(text: Union[str, bytes], name: str = "<string>", constants: Optional[str] = None,
          strict: bool = False, allow_unregistered: bool = False) -> Module: ...
def passes() -> list[tuple[str, str]]: ...
