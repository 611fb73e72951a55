// bench/dryrun: electro, 120 bpm, in Bb
setcpm(120/4)

// drums: euclidean layers
$: s("bd(3,8), sd(2,8,2), hh(7,16)").bank("RolandTR808")
  .every(4, x => x.fast(2)).gain(.8)
$: s("rim(5,16,3)").bank("RolandTR808").gain(.4).room(.3)

// bass: a walking line in the scale
$: n("<0 2 4 5 4 2 1 -1>*2").scale("BB1:minor").s("supersaw")
  .lpf(900).decay(.2).sustain(.4).gain(.5)

// chords: voiced, off-beat stabs with delay
$: chord("<Cm7 Ab^7 Fm7 G7>").voicing().s("gm_string_ensemble_1")
  .struct("~ x ~ x").decay(.3).sustain(.2).delay(.25).room(.4).gain(.35)

// pad: long chords with a slow attack
$: chord("<Cm7 Ab^7 Fm7 G7>").voicing().s("gm_string_ensemble_1")
  .attack(.5).release(1.2).sustain(1).lpf(1200).room(.6).gain(.2)

// lead: an arpeggio with an octave echo on the off-beats
$: n("0 2 4 <6 7> 4 2 <1 3> 0").scale("BB4:minor").s("supersaw")
  .off(1/8, x => x.add(n(7)).gain(.2)).lpf(2500).decay(.15).sustain(.3)
  .delay(.3).delaytime(.375).delayfeedback(.35).gain(.3)
