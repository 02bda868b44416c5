// The dashboard's only script, an enhancement: copy buttons for secrets, commands and shortened ids. Pages work
// without it.
for (const button of document.querySelectorAll('button[data-copy]')) {
  const target = document.getElementById(button.dataset.copy);
  const status = document.querySelector(`[data-copied-for="${button.dataset.copy}"]`);
  if (!target) continue;
  button.hidden = false;
  button.addEventListener('click', async () => {
    const text = 'value' in target ? target.value : target.textContent;
    try {
      await navigator.clipboard.writeText(text);
      if (status) status.textContent = 'Copied.';
    } catch {
      // No clipboard permission: select it so Ctrl+C (or ⌘C) copies it.
      if ('select' in target) target.select();
      else window.getSelection()?.selectAllChildren(target);
      if (status) status.textContent = 'Selected: press Ctrl+C to copy.';
    }
  });
}
// Shortened ids: the button copies the whole id the cell shows only the start of.
for (const button of document.querySelectorAll('button[data-copy-value]')) {
  button.hidden = false;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(button.dataset.copyValue);
      button.textContent = 'Copied';
    } catch {
      // No clipboard permission: the full id is in the tooltip (title) and in the button's data.
      button.textContent = 'Copy failed';
    }
  });
}
// After a refused form, move focus to the problem so it is read out first.
document.getElementById('problem')?.focus();
