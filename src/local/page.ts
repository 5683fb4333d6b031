export const localPage = '<!doctype html><title>holdfast</title>';
