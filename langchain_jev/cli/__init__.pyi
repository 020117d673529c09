"""The face's names, one a line: read by type checkers and by its loader, `langchain_jev._lazy`."""

from langchain_jev.cli._app import main as main
from langchain_jev.datasets._exit_codes import EXIT_BAD_INPUT as EXIT_BAD_INPUT
from langchain_jev.datasets._exit_codes import EXIT_BELOW_THRESHOLD as EXIT_BELOW_THRESHOLD
from langchain_jev.datasets._exit_codes import EXIT_CODES as EXIT_CODES
from langchain_jev.datasets._exit_codes import EXIT_INTERNAL as EXIT_INTERNAL
from langchain_jev.datasets._exit_codes import EXIT_INTERRUPTED as EXIT_INTERRUPTED
from langchain_jev.datasets._exit_codes import EXIT_MODEL_ERRORS as EXIT_MODEL_ERRORS
from langchain_jev.datasets._exit_codes import EXIT_OK as EXIT_OK
from langchain_jev.datasets._exit_codes import exit_code as exit_code
