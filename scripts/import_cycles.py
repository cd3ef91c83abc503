"""An import-linter contract type: no import circle among the modules of a
package, however the modules are grouped into packages.

import-linter's own ``acyclic_siblings`` looks at the children of each
package (a circle between two modules of ``ui/chat`` shows as one between
siblings), but not at a package's ``__init__`` and its own children, and it
names the imports to cut rather than the circle. This contract takes the
whole graph (``TYPE_CHECKING`` and function-local imports count: a circle
hidden behind them is still a circle), finds every strongly connected
component of more than one module (Tarjan), and prints each with the
imports that join its modules. ``ignore_imports`` removes named imports
first, as in the other contract types (``pyproject.toml`` says which and
why); one that matches nothing fails the check, so the list cannot go stale.

Registered in ``pyproject.toml`` (``contract_types``); ``lint-imports``
imports it from the repository root, which it puts on ``sys.path``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Set

import grimp
from importlinter.application import contract_utils, output
from importlinter.application.contract_utils import AlertLevel
from importlinter.domain import fields
from importlinter.domain.contract import Contract, ContractCheck
from importlinter.domain.helpers import module_expressions_to_modules


def strongly_connected(graph: Mapping[str, Set[str]]) -> list[list[str]]:
    """The components of more than one node, each sorted, in sorted order.

    Iterative Tarjan (the package has a few hundred modules, but a chain of
    imports must not meet the recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            for succ in successors:
                if succ not in graph:
                    continue
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph[succ]))))
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component: list[str] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(sorted(component))
    return sorted(components)


def import_cycles(graph: grimp.ImportGraph, modules: Iterable[str]) -> list[list[str]]:
    """The circles among ``modules`` (imports to other modules do not count)."""
    inside = set(modules)
    edges = {m: graph.find_modules_directly_imported_by(m) & inside for m in inside}
    return strongly_connected(edges)


class ModuleCyclesContract(Contract):
    """``packages``: the packages whose modules (all descendants) must import
    each other without a circle."""

    type_name = "module_cycles"

    packages = fields.SetField(subfield=fields.ModuleExpressionField())
    ignore_imports = fields.SetField(subfield=fields.ImportExpressionField(), required=False)
    unmatched_ignore_imports_alerting = fields.EnumField(AlertLevel, default=AlertLevel.ERROR)

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        removal = contract_utils.remove_ignored_imports_and_report(
            graph=graph,
            ignore_imports=self.ignore_imports,  # type: ignore[arg-type]
            unmatched_alerting=self.unmatched_ignore_imports_alerting,  # type: ignore[arg-type]
        )
        modules: set[str] = set()
        for package in module_expressions_to_modules(graph, self.packages, raise_if_unmatched=True):  # type: ignore[arg-type]
            modules.add(package.name)
            modules |= graph.find_descendants(package.name)
        cycles = import_cycles(graph, modules)
        output.verbose_print(verbose, f"{len(cycles)} import circles among {len(modules)} modules.")
        joins = [
            [(a, b) for a in cycle for b in sorted(graph.find_modules_directly_imported_by(a) & set(cycle))]
            for cycle in cycles
        ]
        return ContractCheck(
            kept=not cycles,
            warnings=list(removal.warnings),
            ignored_import_count=removal.ignored_import_count,
            metadata={"cycles": cycles, "joins": joins},
        )

    def render_broken_contract(self, check: ContractCheck) -> None:
        for cycle, joins in zip(check.metadata["cycles"], check.metadata["joins"], strict=True):
            output.print_error(f"Import circle of {len(cycle)} modules: {', '.join(cycle)}")
            for importer, imported in joins:
                output.print_error(f"- {importer} -> {imported}", bold=False)
            output.new_line()
