"""A griffe extension for the API reference: a function a factory makes is documented as that function.

Griffe reads the source, where ``rag_judge, rag_criteria = factories("rag")`` defines
nothing it can see: the functions it makes, with their signatures and the docstrings
written from their judge files, exist only once the module runs. So a module whose
``__all__`` names what its source does not visibly define is inspected as it runs
too, and each such name that is a function there is documented as that function.
"""

from __future__ import annotations

from typing import Any

import griffe


class FactoryMadeFunctions(griffe.Extension):
    """Add to a module each function it exports that a call made, as it is at run time."""

    def on_module_members(
        self, *, mod: griffe.Module, agent: griffe.Visitor | griffe.Inspector, **kwargs: Any
    ) -> None:
        """Inspect ``mod`` as it runs when its ``__all__`` names something its source does not define."""
        if not isinstance(agent, griffe.Visitor):  # the inspection below, or a module with no source
            return
        made = [name for name in mod.exports or () if isinstance(name, str) and name not in mod.members]
        if not made:
            return
        running = griffe.inspect(
            mod.path,
            extensions=agent.extensions,
            docstring_parser=agent.docstring_parser,
            docstring_options=agent.docstring_options,
        )
        for name in made:
            function = running.members.get(name)
            if function is not None and not function.is_alias and function.is_function:
                mod.set_member(name, function)
