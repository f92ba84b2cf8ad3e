/** Not written yet: detects nothing. */
import { FormatError, type GraphFormat } from './types';

export const dependencyLinks: GraphFormat = {
  name: 'dependency-links',
  detect: () => false,
  toStructure() {
    throw new FormatError('', 'not implemented yet');
  },
};
