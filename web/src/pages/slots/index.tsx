// The Slots page: /slots (the list), /slots/new (create), /slots/<name> (detail: actions,
// model swap, live state and engine log) and /slots/<name>/edit. A slot named "new" is
// reached at /slots/new/ only through its list link's detail path, which is why the create
// form takes /slots/new exactly.
import { useSubPath } from '../../router.js';
import { SlotList } from './slot-list.js';
import { SlotDetail } from './slot-detail.js';
import { CreateSlot, EditSlot } from './slot-forms.js';
import './slots.css';

export default function Page() {
  const [first, second] = useSubPath('/slots');
  if (first === undefined) return <SlotList />;
  if (first === 'new' && second === undefined) return <CreateSlot />;
  if (second === 'edit') return <EditSlot name={first} />;
  return <SlotDetail name={first} />;
}
